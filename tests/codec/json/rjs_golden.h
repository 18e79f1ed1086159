/*
 * Golden JSON: frames the original ConsPerf and ProvPerf sent, copied from the captures in
 * tests/data/captures/ws_json (the frame's array brackets removed: one message object each).
 * Enum fields are numbers in these runs.
 */
#ifndef RJS_GOLDEN_H
#define RJS_GOLDEN_H

/* ConsPerf login request (ws_json_conv c2s #1) */
static const char GOLDEN_LOGIN_REQUEST[] =
    "{\"ID\":1,\"Type\":\"Request\",\"Domain\":\"Login\",\"KeyInUpdates\":false,\"Key\":{\"Na"
    "me\":\"root\",\"Elements\":{\"ApplicationId\":\"256\",\"ApplicationName\":\"ConsPerf\",\""
    "Position\":\"127.0.0.1/net\",\"Role\":0}}}";

/* ConsPerf directory request (ws_json_conv c2s #2) */
static const char GOLDEN_DIRECTORY_REQUEST[] =
    "{\"ID\":2,\"Type\":\"Request\",\"Domain\":\"Source\",\"KeyInUpdates\":false,\"Key\":{\"F"
    "ilter\":7}}";

/* ConsPerf item request, native JSON mode (ws_json c2s #3) */
static const char GOLDEN_ITEM_REQUEST[] =
    "{\"ID\":5,\"Type\":\"Request\",\"KeyInUpdates\":false,\"Qos\":{\"Timeliness\":\"Realtime"
    "\",\"Rate\":\"TickByTick\"},\"Key\":{\"Service\":1,\"Name\":\"RDT0\"}}";

/* ConsPerf request of a generic item (ws_json_conv c2s #3) */
static const char GOLDEN_ITEM_REQUEST_PRIVATE[] =
    "{\"ID\":5,\"Type\":\"Request\",\"KeyInUpdates\":false,\"Qos\":{\"Timeliness\":\"Realtime"
    "\",\"Rate\":\"TickByTick\"},\"Private\":true,\"Key\":{\"Service\":1,\"Name\":\"RDT0\"}}";

/* ConsPerf snapshot request (ws_json_conv_snapshot c2s #3) */
static const char GOLDEN_ITEM_REQUEST_SNAPSHOT[] =
    "{\"ID\":5,\"Type\":\"Request\",\"Streaming\":false,\"KeyInUpdates\":false,\"Qos\":{\"Tim"
    "eliness\":\"Realtime\",\"Rate\":\"TickByTick\"},\"Key\":{\"Service\":1,\"Name\":\"RDT0\""
    "}}";

/* ConsPerf post with TIM_TRK_2 (ws_json_conv c2s #8) */
static const char GOLDEN_POST[] =
    "{\"ID\":6,\"Type\":\"Post\",\"PostUserInfo\":{\"Address\":\"127.0.0.1\",\"UserID\":19014"
    "},\"Message\":{\"ID\":0,\"Type\":\"Update\",\"UpdateType\":\"Unspecified\",\"PostUserInf"
    "o\":{\"Address\":\"127.0.0.1\",\"UserID\":19014},\"Fields\":{\"BID\":3048.560000,\"ASK\""
    ":3049.610000,\"BIDSIZE\":1,\"ASKSIZE\":1,\"BID_COND_N\":\"R\",\"ASK_COND_N\":\"R\",\"BID"
    "_NET_CH\":15.340000,\"GV1_TEXT\":\" \",\"LIMIT_INDQ\":0,\"NUM_BIDS\":33701,\"PRC_QL_CD\""
    ":0,\"PRC_QL3\":0,\"SEQNUM_QT\":39100332,\"RETAIL_INT\":1,\"STOCK_TYPE\":\" \",\"NBBO_IND"
    "\":4,\"QUOTIM_MS\":57132002,\"QUOTIM\":\"15:52:12.00000002\",\"TIMACT\":\"15:52:00.00002"
    "\",\"QTE_ORIGIN\":\" \",\"GV1_FLAG\":\" \",\"BID_HIGH_1\":2848.560002,\"ORDRECV_MS\":\"1"
    "5:52:12.2\",\"TIM_TRK_2\":770184342}}}";

/* ConsPerf generic message with TIM_TRK_3 (ws_json_conv c2s #9) */
static const char GOLDEN_CONS_GENERIC[] =
    "{\"ID\":6,\"Type\":\"Generic\",\"Complete\":false,\"Fields\":{\"BID\":3348.560000,\"ASK\""
    ":3349.610000,\"BIDSIZE\":1,\"ASKSIZE\":1,\"BID_COND_N\":\"R\",\"ASK_COND_N\":\"R\",\"BID"
    "_NET_CH\":18.340000,\"GV1_TEXT\":\" \",\"LIMIT_INDQ\":0,\"NUM_BIDS\":36701,\"PRC_QL_CD\""
    ":0,\"PRC_QL3\":0,\"SEQNUM_QT\":39100335,\"RETAIL_INT\":1,\"STOCK_TYPE\":\" \",\"NBBO_IND"
    "\":4,\"QUOTIM_MS\":57132005,\"QUOTIM\":\"15:52:12.00000005\",\"TIMACT\":\"15:52:00.00005"
    "\",\"QTE_ORIGIN\":\" \",\"GV1_FLAG\":\" \",\"BID_HIGH_1\":2848.560005,\"ORDRECV_MS\":\"1"
    "5:52:12.5\",\"TIM_TRK_3\":770184464}}";

/* ProvPerf login refresh (ws_json_conv s2c #1) */
static const char GOLDEN_LOGIN_REFRESH[] =
    "{\"ID\":1,\"Type\":\"Refresh\",\"Domain\":\"Login\",\"Key\":{\"Name\":\"root\",\"Element"
    "s\":{\"ApplicationId\":\"256\",\"ApplicationName\":\"ProvPerf\",\"Position\":\"127.0.0.1"
    "/net\",\"SingleOpen\":0,\"SupportOMMPost\":1}},\"State\":{\"Stream\":\"Open\",\"Data\":\""
    "Ok\"},\"ClearCache\":false}";

/* ProvPerf directory refresh (ws_json_conv s2c #2) */
static const char GOLDEN_DIRECTORY_REFRESH[] =
    "{\"ID\":2,\"Type\":\"Refresh\",\"Domain\":\"Source\",\"Key\":{\"Filter\":7},\"State\":{\""
    "Stream\":\"Open\",\"Data\":\"Ok\"},\"Map\":{\"KeyType\":\"UInt\",\"Entries\":[{\"Action\""
    ":\"Add\",\"Key\":1,\"FilterList\":{\"Entries\":[{\"ID\":1,\"Action\":\"Set\",\"Elements\""
    ":{\"Name\":\"DIRECT_FEED\",\"Vendor\":\"Refinitiv\",\"IsSource\":1,\"Capabilities\":{\"T"
    "ype\":\"Array\",\"Data\":{\"Type\":\"UInt\",\"Data\":[5,6,127]}},\"DictionariesProvided\""
    ":{\"Type\":\"Array\",\"Data\":{\"Type\":\"AsciiString\",\"Data\":[\"RWFFld\",\"RWFEnum\""
    "]}},\"DictionariesUsed\":{\"Type\":\"Array\",\"Data\":{\"Type\":\"AsciiString\",\"Data\""
    ":[\"RWFFld\",\"RWFEnum\"]}},\"QoS\":{\"Type\":\"Array\",\"Data\":{\"Type\":\"Qos\",\"Dat"
    "a\":[{\"Timeliness\":\"Realtime\",\"Rate\":\"TickByTick\"}]}},\"SupportsQoSRange\":0,\"S"
    "upportsOutOfBandSnapshots\":0,\"AcceptingConsumerStatus\":0}},{\"ID\":2,\"Action\":\"Set"
    "\",\"Elements\":{\"ServiceState\":1,\"AcceptingRequests\":1}},{\"ID\":4,\"Action\":\"Set"
    "\",\"Elements\":{\"OpenLimit\":1000000}}]}}]}}";

/* ProvPerf item refresh, numeric enums (ws_json_post s2c #3) */
static const char GOLDEN_REFRESH[] =
    "{\"ID\":5,\"Type\":\"Refresh\",\"Key\":{\"Service\":1,\"Name\":\"RDT0\"},\"State\":{\"St"
    "ream\":\"Open\",\"Data\":\"Ok\"},\"Qos\":{\"Timeliness\":\"Realtime\",\"Rate\":\"TickByT"
    "ick\"},\"Fields\":{\"PROD_PERM\":6560,\"RDNDISPLAY\":66,\"TRDTIM_MS\":75601000,\"SALTIM_"
    "MS\":84514000,\"RDN_EXCHID\":0,\"QUOTIM_MS\":84932000,\"TRDPRC_1\":398.15,\"TIMCOR_MS\":"
    "137197144,\"ASKXID\":3,\"NUM_MOVES\":16844,\"BIDXID\":3,\"OFFCL_CODE\":null,\"HSTCLSDATE"
    "\":\"2005-11-15\",\"NETCHNG_1\":5.35,\"HIGH_1\":398.85,\"BID_MMID1\":\"BOS\",\"LOW_1\":3"
    "94.11,\"PRCTCK_1\":1,\"CURRENCY\":840,\"ASK_MMID1\":\"BOS\",\"TRADE_DATE\":\"2005-11-16\""
    ",\"EXCHTIM\":\"21:00:01\",\"OPEN_PRC\":396.50,\"GV1_TEXT\":\"-\",\"HST_CLOSE\":392.8,\"I"
    "RGPRC\":398.85,\"BID\":0.01,\"IRGVOL\":144,\"IRGCOND\":132,\"TIMCOR\":\"21:00:01\",\"ASK"
    "\":9000.00,\"INSPRC\":null,\"INSVOL\":null,\"INSCOND\":0,\"RDN_EXCHD2\":560,\"SALTIM\":\""
    "23:28:34\",\"OFF_CD_IND\":4,\"TURNOVER\":392.8,\"PREF_DISP\":2254,\"BIDSIZE\":1,\"ASKSIZ"
    "E\":1,\"ACVOL_1\":8719016,\"OPN_NETCH\":3.70,\"IRGXID\":4,\"TRDVOL_1\":26506,\"EXDIVDATE"
    "\":\"2005-11-15\",\"CTS_QUAL\":0,\"SEQNUM\":1266750,\"BLKCOUNT\":5,\"PRNTBCK\":968902,\""
    "BLKVOLUM\":116195,\"BID_NET_CH\":null,\"TRDXID_1\":43,\"QUOTIM\":\"23:35:32\",\"BID_TICK"
    "_1\":2,\"CUM_EX_MKR\":0,\"PRC_QL_CD\":0,\"VOL_X_PRC1\":397.9481,\"RECORDTYPE\":113,\"TRD"
    "_UNITS\":2,\"PCTCHNG\":1.36,\"OPENEXID\":5,\"CLOSE_BID\":398.01,\"PRC_QL2\":0,\"CLOSE_AS"
    "K\":398.10,\"GV1_FLAG\":null,\"PROV_SYMB\":\"GOOG\",\"ADJUST_CLS\":392.8,\"HST_CLSBID\":"
    "null,\"HSTCLBDDAT\":\"2005-11-15\",\"BID_COND_N\":\"S\",\"ASK_COND_N\":\"S\",\"LIMIT_IND"
    "Q\":1,\"NUM_BIDS\":31721,\"PRC_QL3\":1,\"SEQNUM_QT\":39100229,\"RETAIL_INT\":2,\"STOCK_T"
    "YPE\":\" \",\"NBBO_IND\":3,\"TIMACT\":\"15:52:00.003007001\",\"QTE_ORIGIN\":\"S\",\"BID_"
    "HIGH_1\":2848.560003,\"ORDRECV_MS\":\"15:52:12.000000003\",\"TIM_TRK_1\":null,\"TIM_TRK_"
    "2\":null,\"TIM_TRK_3\":null}}";

/* ProvPerf refresh of a private stream (ws_json_conv s2c #3) */
static const char GOLDEN_REFRESH_PRIVATE[] =
    "{\"ID\":5,\"Type\":\"Refresh\",\"Key\":{\"Service\":1,\"Name\":\"RDT0\"},\"State\":{\"St"
    "ream\":\"Open\",\"Data\":\"Ok\"},\"Qos\":{\"Timeliness\":\"Realtime\",\"Rate\":\"TickByT"
    "ick\"},\"Private\":true,\"Fields\":{\"PROD_PERM\":6560,\"RDNDISPLAY\":66,\"TRDTIM_MS\":7"
    "5601000,\"SALTIM_MS\":84514000,\"RDN_EXCHID\":0,\"QUOTIM_MS\":84932000,\"TRDPRC_1\":398."
    "15,\"TIMCOR_MS\":137197144,\"ASKXID\":3,\"NUM_MOVES\":16844,\"BIDXID\":3,\"OFFCL_CODE\":"
    "null,\"HSTCLSDATE\":\"2005-11-15\",\"NETCHNG_1\":5.35,\"HIGH_1\":398.85,\"BID_MMID1\":\""
    "BOS\",\"LOW_1\":394.11,\"PRCTCK_1\":1,\"CURRENCY\":840,\"ASK_MMID1\":\"BOS\",\"TRADE_DAT"
    "E\":\"2005-11-16\",\"EXCHTIM\":\"21:00:01\",\"OPEN_PRC\":396.50,\"GV1_TEXT\":\"-\",\"HST"
    "_CLOSE\":392.8,\"IRGPRC\":398.85,\"BID\":0.01,\"IRGVOL\":144,\"IRGCOND\":132,\"TIMCOR\":"
    "\"21:00:01\",\"ASK\":9000.00,\"INSPRC\":null,\"INSVOL\":null,\"INSCOND\":0,\"RDN_EXCHD2\""
    ":560,\"SALTIM\":\"23:28:34\",\"OFF_CD_IND\":4,\"TURNOVER\":392.8,\"PREF_DISP\":2254,\"BI"
    "DSIZE\":1,\"ASKSIZE\":1,\"ACVOL_1\":8719016,\"OPN_NETCH\":3.70,\"IRGXID\":4,\"TRDVOL_1\""
    ":26506,\"EXDIVDATE\":\"2005-11-15\",\"CTS_QUAL\":0,\"SEQNUM\":1266750,\"BLKCOUNT\":5,\"P"
    "RNTBCK\":968902,\"BLKVOLUM\":116195,\"BID_NET_CH\":null,\"TRDXID_1\":43,\"QUOTIM\":\"23:"
    "35:32\",\"BID_TICK_1\":2,\"CUM_EX_MKR\":0,\"PRC_QL_CD\":0,\"VOL_X_PRC1\":397.9481,\"RECO"
    "RDTYPE\":113,\"TRD_UNITS\":2,\"PCTCHNG\":1.36,\"OPENEXID\":5,\"CLOSE_BID\":398.01,\"PRC_"
    "QL2\":0,\"CLOSE_ASK\":398.10,\"GV1_FLAG\":null,\"PROV_SYMB\":\"GOOG\",\"ADJUST_CLS\":392"
    ".8,\"HST_CLSBID\":null,\"HSTCLBDDAT\":\"2005-11-15\",\"BID_COND_N\":\"S\",\"ASK_COND_N\""
    ":\"S\",\"LIMIT_INDQ\":1,\"NUM_BIDS\":31721,\"PRC_QL3\":1,\"SEQNUM_QT\":39100229,\"RETAIL"
    "_INT\":2,\"STOCK_TYPE\":\" \",\"NBBO_IND\":3,\"TIMACT\":\"15:52:00.003007001\",\"QTE_ORI"
    "GIN\":\"S\",\"BID_HIGH_1\":2848.560003,\"ORDRECV_MS\":\"15:52:12.000000003\",\"TIM_TRK_1"
    "\":null,\"TIM_TRK_2\":null,\"TIM_TRK_3\":null}}";

/* ProvPerf reflecting a post as an update (ws_json_conv s2c #8) */
static const char GOLDEN_POST_REFLECTED[] =
    "{\"ID\":6,\"Type\":\"Update\",\"UpdateType\":\"Unspecified\",\"PostUserInfo\":{\"Address"
    "\":\"127.0.0.1\",\"UserID\":19014},\"Fields\":{\"BID\":3048.560000,\"ASK\":3049.610000,\""
    "BIDSIZE\":1,\"ASKSIZE\":1,\"BID_COND_N\":\"R\",\"ASK_COND_N\":\"R\",\"BID_NET_CH\":15.34"
    "0000,\"GV1_TEXT\":\" \",\"LIMIT_INDQ\":0,\"NUM_BIDS\":33701,\"PRC_QL_CD\":0,\"PRC_QL3\":"
    "0,\"SEQNUM_QT\":39100332,\"RETAIL_INT\":1,\"STOCK_TYPE\":\" \",\"NBBO_IND\":4,\"QUOTIM_M"
    "S\":57132002,\"QUOTIM\":\"15:52:12.00000002\",\"TIMACT\":\"15:52:00.00002\",\"QTE_ORIGIN"
    "\":\" \",\"GV1_FLAG\":\" \",\"BID_HIGH_1\":2848.560002,\"ORDRECV_MS\":\"15:52:12.2\",\"T"
    "IM_TRK_2\":770184342}}";

/* ProvPerf update (ws_json_conv s2c #10) */
static const char GOLDEN_UPDATE[] =
    "{\"ID\":7,\"Type\":\"Update\",\"UpdateType\":\"Unspecified\",\"Fields\":{\"BID\":2848.56"
    "0000,\"ASK\":2849.610000,\"BIDSIZE\":1,\"ASKSIZE\":1,\"BID_COND_N\":\"R\",\"ASK_COND_N\""
    ":\"R\",\"BID_NET_CH\":13.340000,\"GV1_TEXT\":\" \",\"LIMIT_INDQ\":0,\"NUM_BIDS\":31701,\""
    "PRC_QL_CD\":0,\"PRC_QL3\":0,\"SEQNUM_QT\":39100330,\"RETAIL_INT\":1,\"STOCK_TYPE\":\" \""
    ",\"NBBO_IND\":4,\"QUOTIM_MS\":57132000,\"QUOTIM\":\"15:52:12\",\"TIMACT\":\"15:52:00\",\""
    "QTE_ORIGIN\":\" \",\"GV1_FLAG\":\" \",\"BID_HIGH_1\":2848.560000,\"ORDRECV_MS\":\"15:52:"
    "12\"}}";

/* ProvPerf latency update with TIM_TRK_1 (ws_json_post s2c #8) */
static const char GOLDEN_UPDATE_STAMPED[] =
    "{\"ID\":6,\"Type\":\"Update\",\"UpdateType\":\"Unspecified\",\"Fields\":{\"BID\":2848.56"
    "0000,\"ASK\":2849.610000,\"BIDSIZE\":1,\"ASKSIZE\":1,\"BID_COND_N\":\"R\",\"ASK_COND_N\""
    ":\"R\",\"BID_NET_CH\":13.340000,\"GV1_TEXT\":\" \",\"LIMIT_INDQ\":0,\"NUM_BIDS\":31701,\""
    "PRC_QL_CD\":0,\"PRC_QL3\":0,\"SEQNUM_QT\":39100330,\"RETAIL_INT\":1,\"STOCK_TYPE\":\" \""
    ",\"NBBO_IND\":4,\"QUOTIM_MS\":57132000,\"QUOTIM\":\"15:52:12\",\"TIMACT\":\"15:52:00\",\""
    "QTE_ORIGIN\":\" \",\"GV1_FLAG\":\" \",\"BID_HIGH_1\":2848.560000,\"ORDRECV_MS\":\"15:52:"
    "12\",\"TIM_TRK_1\":770132498}}";

/* ProvPerf generic message with TIM_TRK_3 (ws_json_post s2c #13) */
static const char GOLDEN_PROV_GENERIC[] =
    "{\"ID\":6,\"Type\":\"Generic\",\"Complete\":false,\"Fields\":{\"BID\":3348.560000,\"ASK\""
    ":3349.610000,\"BIDSIZE\":1,\"ASKSIZE\":1,\"BID_COND_N\":\"R\",\"ASK_COND_N\":\"R\",\"BID"
    "_NET_CH\":18.340000,\"GV1_TEXT\":\" \",\"LIMIT_INDQ\":0,\"NUM_BIDS\":36701,\"PRC_QL_CD\""
    ":0,\"PRC_QL3\":0,\"SEQNUM_QT\":39100335,\"RETAIL_INT\":1,\"STOCK_TYPE\":\" \",\"NBBO_IND"
    "\":4,\"QUOTIM_MS\":57132005,\"QUOTIM\":\"15:52:12.00000005\",\"TIMACT\":\"15:52:00.00005"
    "\",\"QTE_ORIGIN\":\" \",\"GV1_FLAG\":\" \",\"BID_HIGH_1\":2848.560005,\"ORDRECV_MS\":\"1"
    "5:52:12.5\",\"TIM_TRK_3\":770132568}}";

#endif
