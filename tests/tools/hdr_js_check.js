// The histogram logs against an independent implementation of HdrHistogram: the
// hdr-histogram-js package (found through NODE_PATH; test_hdr_js.sh installs it).
//
//   node hdr_js_check.js read <log> <tag>...
//       prints per tag, from every interval of the log added up: count, min, max, p50, p99 (ns,
//       as the package reads them: the highest value equivalent to the percentile's sample)
//   node hdr_js_check.js compare <log> <file.json> <tag>=<path>...
//       compares the log's tag with the latency object at <path> of the JSON file (members
//       separated by dots: results.overall.latency of a summary, combined.latency_usec.update
//       of rwfperf-merge's report; values in microseconds): the counts must be equal, min,
//       max, p50 and p99 equivalent in the log's histogram (the same counter: within its
//       precision). Exit status 1 on a difference.
//   node hdr_js_check.js write <log>
//       writes a log with the package's own writer (3 significant digits, other than ours,
//       our header lines first so that rwfperf-merge takes it), tag "update".
"use strict";
const fs = require("fs");
const hdr = require("hdr-histogram-js");

function readLog(path) {
  const reader = new hdr.HistogramLogReader(fs.readFileSync(path, "utf8"));
  const sums = {};
  let h;
  while ((h = reader.nextIntervalHistogram()) !== null) {
    const tag = h.tag || "";
    if (!sums[tag]) {
      sums[tag] = hdr.build({
        lowestDiscernibleValue: h.lowestDiscernibleValue,
        highestTrackableValue: h.highestTrackableValue,
        numberOfSignificantValueDigits: h.numberOfSignificantValueDigits,
        bitBucketSize: 64,
      });
    }
    sums[tag].add(h);
  }
  return sums;
}

function figures(h) {
  return {
    count: h.totalCount,
    min: h.minNonZeroValue,
    max: h.maxValue,
    p50: h.getValueAtPercentile(50),
    p99: h.getValueAtPercentile(99),
  };
}

function read(path, tags) {
  const sums = readLog(path);
  for (const tag of tags) {
    if (!sums[tag]) throw new Error(`${path}: no interval tagged ${tag}`);
    const f = figures(sums[tag]);
    console.log(`${tag} count ${f.count} min ${f.min} max ${f.max} p50 ${f.p50} p99 ${f.p99}`);
  }
}

function compare(path, jsonPath, pairs) {
  const sums = readLog(path);
  const doc = JSON.parse(fs.readFileSync(jsonPath, "utf8"));
  let bad = 0;
  for (const pair of pairs) {
    const [tag, key] = pair.split("=");
    const h = sums[tag];
    const s = key.split(".").reduce((o, m) => (o ? o[m] : undefined), doc);
    if (!h || !s) {
      console.log(`FAIL ${tag}: ${h ? "" : "no such tag in the log "}${s ? "" : "no " + key + " in the summary"}`);
      bad++;
      continue;
    }
    const f = figures(h);
    const out = [];
    const same = (name, ours, js) => {
      // Ours in microseconds (a counter's middle, or the exact value); the package's value is
      // the top of its counter: the same counter is the histogram's precision.
      const ns = Math.floor(ours * 1000 + 1e-6);
      const ok = h.lowestEquivalentValue(ns) === h.lowestEquivalentValue(js);
      out.push(`${name} ${ours} us / ${js} ns${ok ? "" : " DIFFERENT"}`);
      if (!ok) bad++;
    };
    const countOk = f.count === s.count;
    out.push(`count ${s.count} / ${f.count}${countOk ? "" : " DIFFERENT"}`);
    if (!countOk) bad++;
    same("min", s.min, f.min);
    same("max", s.max, f.max);
    same("p50", s.p50, f.p50);
    same("p99", s.p99, f.p99);
    console.log(`${tag} (${key} / hdr-histogram-js): ${out.join(", ")}`);
  }
  return bad;
}

function write(path) {
  const h = hdr.build({
    lowestDiscernibleValue: 1,
    highestTrackableValue: 3600 * 1e9,
    numberOfSignificantValueDigits: 3,
    bitBucketSize: 64,
  });
  const lines = [];
  const w = new hdr.HistogramLogWriter((s) => lines.push(s));
  w.outputComment("[rwfperf histogram log: ConsPerf 1.0.0 hdr-histogram-js]");
  w.outputComment("[Host: jshost, pid 77, thread 1]");
  w.outputComment("[Values: nanoseconds, Interval_Max in milliseconds]");
  w.outputLogFormatVersion();
  w.outputLegend();
  let seed = 1;
  const rnd = () => {
    seed = (seed * 1103515245 + 12345) % 2147483648;
    return seed / 2147483648;
  };
  for (let k = 0; k < 6; k++) {
    h.reset();
    for (let i = 0; i < 5000; i++) {
      let v = Math.floor(30000 + 40000 * rnd());
      if (rnd() < 0.01) v *= 30;
      if (i % 1000 === 0) v = 7 + i; // single counts among zeros
      h.recordValue(v);
    }
    // A whole number of microseconds: Interval_Max, written with 3 decimals of a
    // millisecond, is then exact.
    h.recordValue(3000000);
    h.tag = "update";
    w.outputIntervalHistogram(h, 5 * k, 5 * k + 5, 1e6);
  }
  fs.writeFileSync(path, lines.join(""));
}

const [cmd, ...args] = process.argv.slice(2);
if (cmd === "read") read(args[0], args.slice(1));
else if (cmd === "compare") process.exit(compare(args[0], args[1], args.slice(2)) ? 1 : 0);
else if (cmd === "write") write(args[0]);
else {
  console.error("usage: hdr_js_check.js read|compare|write ...");
  process.exit(2);
}
