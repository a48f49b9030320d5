//! The built-in families as retrieval sees them (see `index`), made from their words, asks and
//! tools so that no run spends its start on it. Written by the registry's `built_tests`
//! (`MARVIN_WRITE_INDEX=1 cargo test --lib built_index`), which fails when it is out of date.

use std::borrow::Cow;

use super::index::{Entry, Terms};

#[rustfmt::skip]
pub(crate) static BUILT: &[Entry] = &[
    Entry {
        id: Cow::Borrowed("academic"),
        length: 113.4,
        terms: Terms::Built {
            text: "ababstractarxivauauthorcatcitatcitecomputcountdatedefaultfindfirstidjournalkeywordlatestlinkliteraturlookmanimathnewestownpaperpdfphysicpreprintpublishquestionrecentrelevresearchscholarsciencsearchsemantsleepstudisubmitsyntaxtititltopictransformupdatvenuwroteyear",
            ends: &[2, 10, 15, 17, 23, 26, 31, 35, 41, 46, 50, 57, 61, 66, 68, 75, 82, 88, 92, 101, 105, 109, 113, 119, 122, 127, 130, 136, 144, 151, 159, 165, 170, 178, 185, 191, 197, 203, 208, 213, 219, 225, 227, 231, 236, 245, 250, 254, 259, 263],
            tenths: &[3, 10, 86, 3, 20, 3, 40, 20, 10, 10, 10, 9, 20, 3, 13, 30, 16, 20, 20, 10, 3, 6, 10, 3, 3, 196, 10, 10, 53, 10, 10, 10, 3, 90, 50, 10, 80, 10, 20, 80, 3, 3, 3, 23, 13, 20, 3, 10, 20, 13],
        },
    },
    Entry {
        id: Cow::Borrowed("alarms"),
        length: 146.9,
        terms: Terms::Built {
            text: "3pmalarmalertcancelchecklistclockclocktimdailidatedaydecembdefaultdesktopdropearlieverifirstfridaygavegymidisolabellistlocalminutmondaymornnextnotifntfioffsetoncpassprofilpushremindringsaysetsnoozsuchtimetodaytomorrowtopicturnuserwakewakeupweekdaywhose",
            ends: &[3, 8, 13, 19, 28, 33, 41, 46, 50, 53, 59, 66, 73, 77, 82, 87, 92, 98, 102, 105, 107, 110, 115, 119, 124, 129, 135, 139, 143, 148, 152, 158, 161, 165, 171, 175, 181, 185, 188, 191, 196, 200, 204, 209, 217, 222, 226, 230, 234, 240, 247, 252],
            tenths: &[3, 368, 30, 80, 3, 30, 33, 13, 3, 26, 3, 6, 10, 10, 20, 3, 3, 9, 3, 20, 23, 3, 20, 33, 3, 3, 3, 70, 6, 10, 10, 3, 13, 10, 10, 10, 80, 33, 13, 83, 30, 3, 59, 3, 23, 10, 20, 13, 140, 30, 13, 10],
        },
    },
    Entry {
        id: Cow::Borrowed("ask"),
        length: 67.6,
        terms: Terms::Built {
            text: "alwayansweraskbetweenchoicchoosdeciddecisdefaultfewfreehelpjsonlongmultiplofferoptionotherpersonpickpreferquestionreturnschedultextuserwait",
            ends: &[5, 11, 14, 21, 26, 31, 36, 41, 48, 51, 55, 59, 63, 67, 74, 79, 85, 90, 96, 100, 106, 114, 120, 127, 131, 135, 139],
            tenths: &[3, 16, 100, 20, 80, 50, 50, 10, 3, 20, 3, 50, 10, 3, 30, 3, 70, 3, 20, 20, 30, 33, 10, 3, 3, 30, 3],
        },
    },
    Entry {
        id: Cow::Borrowed("blender"),
        length: 254.1,
        terms: Terms::Built {
            text: "3daddanglansweranythapprovbackbaseblenderboundboxbpibsdfcameracannotchecklistcodecolourcreatcubecursorcylinddefaultdegredeletdescribdetaildirectorieachemptieulerexactexecutexistfactorfalsfilefirsthideimportinsidlightlinearlistlocatlongestlookmakemanimaterimeshmetalmetrmodemodifimovenameneednewobjectopenoptionotherpathpicturpiecpixelplacepngpointprimitprinciplprintprivatpythonredrelatrenamrenderresultreusrotatroughrrggbbrunsavescalescenescreenshotscriptsetshowsidesizesphereswitchtakentemporaritexttooltruetypeuserviewportvisiblwork",
            ends: &[2, 5, 9, 15, 20, 26, 30, 34, 41, 46, 49, 52, 56, 62, 68, 77, 81, 87, 92, 96, 102, 108, 115, 120, 125, 132, 138, 147, 151, 156, 161, 166, 172, 177, 183, 187, 191, 196, 200, 206, 211, 216, 222, 226, 231, 238, 242, 246, 250, 256, 260, 265, 269, 273, 279, 283, 287, 291, 294, 300, 304, 310, 315, 319, 325, 329, 334, 339, 342, 347, 353, 361, 366, 372, 378, 381, 386, 391, 397, 403, 407, 412, 417, 423, 426, 430, 435, 440, 450, 456, 459, 463, 467, 471, 477, 483, 488, 497, 501, 505, 509, 513, 517, 525, 531, 535],
            tenths: &[83, 36, 6, 10, 10, 10, 10, 10, 392, 10, 10, 13, 10, 30, 10, 6, 30, 20, 20, 50, 3, 20, 12, 16, 50, 10, 10, 3, 10, 10, 6, 12, 40, 3, 6, 3, 13, 40, 13, 3, 20, 10, 3, 6, 20, 3, 20, 30, 10, 116, 70, 30, 6, 10, 20, 30, 38, 10, 9, 215, 10, 10, 10, 10, 10, 10, 3, 10, 13, 10, 10, 10, 13, 3, 33, 20, 3, 13, 53, 3, 3, 30, 10, 3, 13, 13, 30, 156, 40, 20, 20, 13, 3, 20, 50, 10, 3, 3, 10, 10, 3, 20, 10, 33, 10, 13],
        },
    },
    Entry {
        id: Cow::Borrowed("bookmarks"),
        length: 127.3,
        terms: Terms::Built {
            text: "addressanythappeararticlbookmarkcallcasechecklistcontaindefaultdigfindfirstgivenhttphttpsitaliankeeplaterlinklistmaninewestnoteoptionpagereadrecipremembremovsavesearchshowstoretagtitltranslatupdaturluserwantwebwhosewordworth",
            ends: &[7, 12, 18, 24, 32, 36, 40, 49, 56, 63, 66, 70, 75, 80, 84, 89, 96, 100, 105, 109, 113, 117, 123, 127, 133, 137, 141, 146, 152, 157, 161, 167, 171, 176, 179, 183, 191, 196, 199, 203, 207, 210, 215, 219, 224],
            tenths: &[29, 3, 3, 20, 193, 3, 3, 20, 10, 9, 20, 33, 13, 10, 3, 3, 3, 30, 80, 180, 30, 6, 13, 13, 10, 30, 50, 3, 3, 20, 210, 20, 26, 20, 26, 13, 3, 10, 20, 30, 10, 10, 10, 16, 3],
        },
    },
    Entry {
        id: Cow::Borrowed("calendar"),
        length: 381.1,
        terms: Terms::Built {
            text: "addagendaaheadanniversarianythappointaprilaugustbankbarebirthdaybookbusicalcalendarcallcancelchecklistclearclocktimcomeconcertconferdatedaydddecembdefaultdeletdentistdescribdiaridinnerduratendeventfebruarifilefirstflightformfreefridaygavegigholidayhouricidimportjanuarijulijunelastlistlocallonglooklunchmanimarchmatchmeetminutmmmondaymornnextnotenotifinovemboctobotherpartiplanprogramputrangremindsamsamesaturdaysaveschedulseptembsetshowsooneststartsundaythursdaytimetodaytomorrowtonighttournamenttruetuesdayupcomuservacatviewwedwednesdayweekweekdayweekendyetyyyi",
            ends: &[3, 9, 14, 25, 30, 37, 42, 48, 52, 56, 64, 68, 72, 75, 83, 87, 93, 102, 107, 115, 119, 126, 132, 136, 139, 141, 147, 154, 159, 166, 173, 178, 184, 189, 192, 197, 205, 209, 214, 220, 224, 228, 234, 238, 241, 248, 252, 254, 256, 262, 269, 273, 277, 281, 285, 290, 294, 298, 303, 307, 312, 317, 321, 326, 328, 334, 338, 342, 346, 352, 358, 363, 368, 373, 377, 384, 387, 391, 397, 400, 404, 412, 416, 423, 430, 433, 437, 444, 449, 455, 463, 467, 472, 480, 487, 497, 501, 508, 513, 517, 522, 526, 529, 538, 542, 549, 556, 559, 563],
            tenths: &[53, 30, 3, 30, 40, 110, 30, 30, 20, 3, 30, 80, 30, 30, 196, 50, 80, 20, 30, 30, 30, 30, 30, 40, 58, 3, 36, 18, 30, 40, 20, 50, 30, 3, 3, 159, 30, 30, 10, 30, 3, 30, 56, 3, 30, 30, 13, 30, 13, 30, 30, 30, 30, 6, 30, 3, 3, 20, 50, 3, 30, 30, 100, 16, 3, 30, 20, 73, 3, 3, 30, 30, 10, 50, 120, 30, 20, 13, 200, 20, 6, 30, 30, 160, 30, 20, 40, 10, 9, 30, 30, 16, 33, 56, 30, 30, 3, 50, 20, 40, 30, 23, 30, 30, 80, 3, 50, 10, 3],
        },
    },
    Entry {
        id: Cow::Borrowed("coding/agents"),
        length: 123.3,
        terms: Terms::Built {
            text: "agentanothansweranythautobackgroundchangcheckcodecodebascodexconcentrcurrentdelegeverythfinalfindidimplementinteractjoblaunchlookmaymodemodelneednonopinionopusparallelreadrefactorreporeturnreviewrunsecondstartstatusstillsubsubagtasktickettiertimetkwholeworkwrite",
            ends: &[5, 10, 16, 21, 25, 35, 40, 45, 49, 56, 61, 69, 76, 81, 88, 93, 97, 99, 108, 116, 119, 125, 129, 132, 136, 141, 145, 148, 155, 159, 167, 171, 179, 183, 189, 195, 198, 204, 209, 215, 220, 223, 228, 232, 238, 242, 246, 248, 253, 257, 262],
            tenths: &[179, 30, 10, 3, 3, 70, 3, 10, 10, 63, 3, 3, 3, 50, 3, 10, 10, 13, 3, 10, 10, 20, 20, 3, 10, 3, 3, 10, 20, 3, 70, 13, 20, 20, 13, 179, 50, 20, 10, 30, 10, 69, 30, 3, 13, 6, 10, 3, 20, 43, 10],
        },
    },
    Entry {
        id: Cow::Borrowed("coding/files"),
        length: 353.1,
        terms: Terms::Built {
            text: "10kbabovacrossaddapiappendappliargumentbeginblockbugchangclasscodecodexcommandconfigcontentcontextcorrectcountcrashcreatcrlfcutdeletdifferdirectoridocdockerfileditendendpointenoughequalexactexistfilefindfirstfixfunctionfuzzhandlerhunkignorimplementincludinclusindentinsteadkeptlarglastlflinemainmakematchmaymethodmistakmodulmoveneednevernewnextnothnumberoccuroldonconeopenoptionoverwritpanicpartpatchpathpickplaceprogramputreadreadmrefactorrefusrelatrenamreplacrestroutrsscaffoldsearchsectionsendsmallerspellsplitstartstrsurroundtesttexttypouniquupdatvariablversionwhitespacwholewithoutworkwrite",
            ends: &[4, 8, 14, 17, 20, 26, 31, 39, 44, 49, 52, 57, 62, 66, 71, 78, 84, 91, 98, 105, 110, 115, 120, 124, 127, 132, 138, 147, 150, 159, 163, 166, 174, 180, 185, 190, 195, 199, 203, 208, 211, 219, 223, 230, 234, 239, 248, 254, 260, 266, 273, 277, 281, 285, 287, 291, 295, 299, 304, 307, 313, 319, 324, 328, 332, 337, 340, 344, 348, 354, 359, 362, 365, 368, 372, 378, 386, 391, 395, 400, 404, 408, 413, 420, 423, 427, 432, 440, 445, 450, 455, 461, 465, 469, 471, 479, 485, 492, 496, 503, 508, 513, 518, 521, 529, 533, 537, 541, 546, 551, 558, 565, 574, 579, 586, 590, 595],
            tenths: &[10, 10, 20, 113, 20, 30, 50, 10, 10, 10, 50, 83, 30, 20, 20, 20, 50, 3, 20, 20, 3, 50, 130, 10, 10, 10, 10, 22, 20, 50, 50, 53, 30, 10, 10, 36, 23, 368, 20, 13, 20, 70, 10, 50, 30, 10, 30, 10, 3, 10, 10, 10, 20, 3, 10, 156, 20, 10, 10, 10, 30, 20, 70, 20, 10, 20, 63, 10, 10, 20, 13, 20, 13, 20, 20, 30, 20, 30, 10, 130, 22, 10, 23, 20, 3, 116, 20, 30, 10, 22, 50, 23, 10, 20, 20, 30, 10, 30, 10, 20, 20, 20, 10, 30, 10, 40, 39, 30, 10, 30, 20, 20, 10, 23, 20, 22, 70],
        },
    },
    Entry {
        id: Cow::Borrowed("coding/git"),
        length: 270.6,
        terms: Terms::Built {
            text: "alonamendanothanythauthorawaybackblamebranchchangcheckcheckoutcherricommitcreatdatedefaultdiffdirectoridiscardeacheverifilefirstgitgivenhashhistoriinsteadkeptlastleftlimitlinelistlocalloglostmakemanimergmessagnevernewnoneomitoneontooptionpathpickpullpushputrebasrecentrefusremotreporestorrevertshowsquashstagestashstatussubjectswitchtagthrowntogethtouchuncommitundounstaguntrackwaywhoseworkyesterdayyet",
            ends: &[4, 9, 14, 19, 25, 29, 33, 38, 44, 49, 54, 62, 68, 74, 79, 83, 90, 94, 103, 110, 114, 119, 123, 128, 131, 136, 140, 147, 154, 158, 162, 166, 171, 175, 179, 184, 187, 191, 195, 199, 203, 209, 214, 217, 221, 225, 228, 232, 238, 242, 246, 250, 254, 257, 262, 268, 273, 278, 282, 288, 294, 298, 304, 309, 314, 320, 327, 333, 336, 342, 348, 353, 361, 365, 371, 378, 381, 386, 390, 399, 402],
            tenths: &[10, 30, 20, 20, 10, 3, 10, 53, 226, 142, 20, 50, 50, 225, 33, 10, 3, 103, 19, 13, 10, 13, 88, 6, 263, 10, 10, 30, 3, 10, 23, 10, 3, 36, 10, 10, 70, 10, 10, 3, 30, 13, 3, 30, 10, 3, 3, 20, 10, 13, 50, 30, 50, 10, 30, 30, 10, 40, 20, 53, 30, 63, 50, 63, 30, 100, 10, 33, 13, 3, 20, 3, 53, 20, 3, 10, 10, 3, 13, 20, 20],
        },
    },
    Entry {
        id: Cow::Borrowed("coding/packages"),
        length: 70.7,
        terms: Terms::Built {
            text: "addaptdependdevelopdirectorihttpxinstallibrarinamenpmoptionpackagpipprojectpytestpythonrequestuvversionwork",
            ends: &[3, 6, 12, 19, 28, 33, 39, 46, 50, 53, 59, 65, 68, 75, 81, 87, 94, 96, 103, 107],
            tenths: &[63, 30, 83, 3, 10, 23, 160, 20, 3, 30, 3, 133, 50, 30, 3, 10, 20, 20, 3, 10],
        },
    },
    Entry {
        id: Cow::Borrowed("coding/search"),
        length: 145.2,
        terms: Terms::Built {
            text: "callercasecodecommentcommitconfigcontentdeepdefaultdefindirectorieveriexcludexpressfilefindfixmfolderfunctiongitignorgrephandlhardkeylevellinelistlookmanimatchnameoccurrpathplaceplainreferregardlessregularretrireturnripgreprssearchsecretshowskipsrctexttreeusagwhosewithoutwork",
            ends: &[6, 10, 14, 21, 27, 33, 40, 44, 51, 56, 65, 70, 76, 83, 87, 91, 95, 101, 109, 117, 121, 126, 130, 133, 138, 142, 146, 150, 154, 159, 163, 169, 173, 178, 183, 188, 198, 205, 210, 216, 223, 225, 231, 237, 241, 245, 248, 252, 256, 260, 265, 272, 276],
            tenths: &[20, 3, 140, 20, 20, 20, 10, 3, 12, 50, 42, 40, 20, 3, 96, 70, 50, 20, 60, 20, 70, 20, 30, 20, 3, 13, 13, 40, 3, 9, 3, 30, 10, 20, 3, 30, 3, 3, 20, 13, 3, 3, 86, 20, 20, 20, 20, 13, 100, 60, 3, 3, 26],
        },
    },
    Entry {
        id: Cow::Borrowed("coding/shell"),
        length: 144.7,
        terms: Terms::Built {
            text: "50kbbashbenchmarkbuildcargocheckcicodecombincommandcompilcountcoveragdefaultdirectoriexecutexitfastfirstformatinstallinelintlintermakemeasurnonnormalnpmoutputprojectpytestresultrunscriptsecondservershellstartstderrstdoutstoptermintesttimework",
            ends: &[4, 8, 17, 22, 27, 32, 34, 38, 44, 51, 57, 62, 69, 76, 85, 91, 95, 99, 104, 110, 116, 120, 124, 130, 134, 140, 143, 149, 152, 158, 165, 171, 177, 180, 186, 192, 198, 203, 208, 214, 220, 224, 230, 234, 238, 242],
            tenths: &[10, 13, 30, 50, 50, 40, 30, 40, 10, 106, 50, 20, 50, 3, 13, 50, 20, 20, 10, 30, 20, 20, 30, 20, 50, 20, 10, 10, 50, 20, 20, 30, 10, 183, 50, 3, 20, 30, 20, 10, 10, 3, 30, 100, 20, 13],
        },
    },
    Entry {
        id: Cow::Borrowed("coding/tickets"),
        length: 112.8,
        terms: Terms::Built {
            text: "addargumentbeginblockbugbuiltchangcliclosecreatdepdescriptfailfileformatgateidinstalissulistlsmanagmarkmarvinnoteopenprojectreopensameshowstartstatusstoretasktexttickettitltktreeworkwrite",
            ends: &[3, 11, 16, 21, 24, 29, 34, 37, 42, 47, 50, 58, 62, 66, 72, 76, 78, 84, 88, 92, 94, 99, 103, 109, 113, 117, 124, 130, 134, 138, 143, 149, 154, 158, 162, 168, 172, 174, 178, 182, 187],
            tenths: &[33, 3, 20, 10, 20, 10, 10, 10, 33, 43, 10, 3, 20, 30, 10, 20, 12, 10, 60, 20, 13, 10, 20, 10, 53, 20, 20, 10, 10, 13, 33, 10, 10, 60, 3, 300, 3, 93, 10, 20, 20],
        },
    },
    Entry {
        id: Cow::Borrowed("coding/workdir"),
        length: 86.8,
        terms: Terms::Built {
            text: "cdchangcommandcratecurrentdirdirectoridocfilefoldergitinsidlieotherpathprojectpwdrelatserversetshowstartswitchwork",
            ends: &[2, 7, 14, 19, 26, 29, 38, 41, 45, 51, 54, 59, 62, 67, 71, 78, 81, 86, 92, 95, 99, 104, 110, 114],
            tenths: &[50, 60, 10, 20, 3, 40, 186, 20, 20, 20, 10, 10, 10, 50, 20, 50, 20, 13, 20, 20, 10, 10, 50, 146],
        },
    },
    Entry {
        id: Cow::Borrowed("downloads"),
        length: 110.4,
        terms: Terms::Built {
            text: "addressaddresssanothaudiocomputdefaultdirectoridlpdownloadelsfalsfetchfilegivegrabhttphttpsisokeeplargerlinkmanimegabytmp3mp4nameneveroverwritpagepdfreadrefussaveserversitesoundunderuservideovimeowantwebwgetyoutubyt",
            ends: &[7, 15, 20, 25, 31, 38, 47, 50, 58, 61, 65, 70, 74, 78, 82, 86, 91, 94, 98, 104, 108, 112, 119, 122, 125, 129, 134, 142, 146, 149, 153, 158, 162, 168, 172, 177, 182, 186, 191, 196, 200, 203, 207, 213, 215],
            tenths: &[3, 3, 10, 30, 20, 9, 20, 60, 170, 3, 3, 20, 126, 3, 20, 3, 3, 20, 3, 3, 20, 3, 3, 53, 30, 6, 10, 10, 3, 20, 10, 3, 63, 3, 10, 3, 3, 30, 113, 3, 10, 10, 30, 63, 60],
        },
    },
    Entry {
        id: Cow::Borrowed("feeds"),
        length: 83.2,
        terms: Terms::Built {
            text: "addressalertatomblogdatedefaultentriepisodexamplfeedfirstgivehttphttpslatestlinkmaninewnewestnewsorgpodcastpostreadrsssitesubscribsummariuserwantxml",
            ends: &[7, 12, 16, 20, 24, 31, 36, 42, 48, 52, 57, 61, 65, 70, 76, 80, 84, 87, 93, 97, 100, 107, 111, 115, 118, 122, 130, 137, 141, 145, 148],
            tenths: &[13, 10, 80, 60, 10, 3, 13, 50, 3, 136, 13, 10, 3, 6, 40, 10, 3, 20, 13, 10, 3, 80, 10, 50, 100, 30, 20, 10, 10, 10, 3],
        },
    },
    Entry {
        id: Cow::Borrowed("github"),
        length: 154.1,
        terms: Terms::Built {
            text: "addressbasebestcaseclientclonecodecommitdefaultdescriptdirectoriexpressfilefindfirstghgithubgrephttpinsidlanglanguaglastlatestlibrarilinemanimatchnameopenorderownerpathplainprojectpyqualifireadreadmregardlessregularreporepositorireturnripgreprustrustlsearchshowsourcstartextuserwhosewithoutword",
            ends: &[7, 11, 15, 19, 25, 30, 34, 40, 47, 55, 64, 71, 75, 79, 84, 86, 92, 96, 100, 105, 109, 116, 120, 126, 133, 137, 141, 146, 150, 154, 159, 164, 168, 173, 180, 182, 189, 193, 198, 208, 215, 219, 229, 235, 242, 246, 251, 257, 261, 266, 270, 274, 278, 283, 290, 294],
            tenths: &[10, 3, 3, 3, 3, 130, 30, 10, 9, 10, 13, 3, 79, 30, 3, 30, 263, 50, 3, 6, 9, 13, 3, 10, 30, 19, 3, 12, 22, 50, 3, 9, 13, 3, 30, 3, 3, 76, 20, 3, 3, 120, 148, 10, 3, 12, 9, 66, 20, 80, 13, 13, 10, 3, 3, 3],
        },
    },
    Entry {
        id: Cow::Borrowed("interview"),
        length: 142.6,
        terms: Terms::Built {
            text: "abovabsolutaltanswerapprovaskbarbelowbrowsercaptionchartchecklistchooscollectcomecontentcontextconvictcriticdatadatasetdefaultdescriptdirectoridoughnuteverifewfileformgatherheaderhighlighthtmlidimaginfoinputinteractinterviewitemitselfjsonlabellanglinelistlookmademanimarkdownmdmediamermaidminormisbehavmultinumberobjectoncoptionotheroutsidpagepathperpersonpicturpiepositpreferpresentprojectquestionquestionnairreadrecommendrelatrenderrequestresultrowsecondselectsevershowsidesinglskipslightsourcsrcstatusstringstrongsupportsurveytabltaketexttitltooltruetypeunderuploaduriuserwaitweightwithoutwork",
            ends: &[4, 11, 14, 20, 26, 29, 32, 37, 44, 51, 56, 65, 70, 77, 81, 88, 95, 102, 108, 112, 119, 126, 134, 143, 151, 156, 159, 163, 167, 173, 179, 188, 192, 194, 198, 202, 207, 215, 224, 228, 234, 238, 243, 247, 251, 255, 259, 263, 267, 275, 277, 282, 289, 294, 302, 307, 313, 319, 322, 328, 333, 339, 343, 347, 350, 356, 362, 365, 370, 376, 383, 390, 398, 410, 414, 423, 428, 434, 441, 447, 450, 456, 462, 467, 471, 475, 480, 484, 490, 495, 498, 504, 510, 516, 523, 529, 533, 537, 541, 545, 549, 553, 557, 562, 568, 571, 575, 579, 585, 592, 596],
            tenths: &[3, 3, 3, 36, 3, 20, 3, 3, 30, 3, 6, 6, 3, 20, 10, 6, 3, 3, 3, 9, 3, 3, 6, 3, 3, 3, 20, 29, 106, 10, 3, 6, 6, 23, 26, 16, 10, 10, 70, 10, 3, 13, 15, 6, 19, 6, 10, 3, 40, 3, 3, 3, 6, 3, 3, 16, 6, 3, 10, 6, 23, 3, 3, 26, 10, 3, 10, 3, 3, 20, 10, 20, 142, 50, 13, 9, 3, 3, 3, 13, 3, 3, 20, 70, 3, 3, 13, 3, 6, 3, 3, 10, 3, 3, 10, 50, 6, 10, 33, 6, 10, 9, 19, 10, 10, 3, 3, 3, 3, 3, 3],
        },
    },
    Entry {
        id: Cow::Borrowed("location"),
        length: 77.0,
        terms: Terms::Built {
            text: "addressaroundciticlosestcoordincoreloccountricurrentdevicelsfindgeocluiplocallocatnamenearnearbinearestnetworkpersonplacepositprecisrightsayuserwhereami",
            ends: &[7, 13, 17, 24, 31, 38, 45, 52, 57, 60, 64, 70, 72, 77, 82, 86, 90, 96, 103, 110, 116, 121, 126, 132, 137, 140, 144, 152],
            tenths: &[10, 30, 30, 30, 10, 10, 20, 50, 10, 10, 30, 10, 10, 30, 100, 10, 40, 60, 30, 10, 20, 10, 20, 10, 20, 10, 20, 120],
        },
    },
    Entry {
        id: Cow::Borrowed("maps"),
        length: 127.8,
        terms: Terms::Built {
            text: "addressamenareaaroundboundaricoordindatadefaultdrinkeiffelelementfindfountainfullgeocodhallhouridjsonlatitudlocatlongitudlookmanimapmuseumnamenodenominatimopenopenstreetmaposmoverpasspartplacepositpostcodprecisqlqueriquestionreturnreversrunsearchshowstreetsuchtagtowertowntypewaterwebsitwithin",
            ends: &[7, 11, 15, 21, 29, 36, 40, 47, 52, 58, 65, 69, 77, 81, 87, 91, 95, 97, 101, 108, 113, 121, 125, 129, 132, 138, 142, 146, 155, 159, 172, 175, 183, 187, 192, 197, 204, 210, 212, 217, 225, 231, 237, 240, 246, 250, 256, 260, 263, 268, 272, 276, 281, 287, 293],
            tenths: &[123, 3, 10, 3, 10, 100, 10, 6, 13, 20, 13, 20, 10, 10, 20, 20, 10, 20, 3, 50, 60, 50, 30, 6, 80, 20, 3, 3, 10, 10, 70, 70, 43, 10, 10, 10, 20, 10, 13, 40, 10, 10, 20, 10, 20, 23, 20, 10, 30, 20, 30, 10, 3, 10, 10],
        },
    },
    Entry {
        id: Cow::Borrowed("media"),
        length: 249.0,
        terms: Terms::Built {
            text: "actoractressamongautoblockbustboxcastcinemacomedidatedefaultdescriptdetaildevelopdirectordocumentariepisodfilmfindgamegenrgoodgrandhorroridimdbinceptmakemakermanimetacritmovinamenintendoofficomdbpagepickplatformplaystatplotpublishraterawgreleasromantrottenruntimsamescoresearchsequelserishowshowtimslugsuchtheatertheatrtheftthrillertitltomatotrailertt0083658tvtypevideowatchwebsitwordwriterxboxyear",
            ends: &[5, 12, 17, 21, 30, 33, 37, 43, 49, 53, 60, 68, 74, 81, 89, 100, 106, 110, 114, 118, 122, 126, 131, 137, 139, 143, 149, 153, 158, 162, 170, 174, 178, 186, 191, 195, 199, 203, 211, 219, 223, 230, 234, 238, 244, 250, 256, 262, 266, 271, 277, 283, 287, 291, 298, 302, 306, 313, 319, 324, 332, 336, 342, 349, 358, 360, 364, 369, 374, 380, 384, 390, 394, 398],
            tenths: &[40, 30, 3, 3, 30, 40, 30, 50, 60, 20, 6, 20, 80, 10, 60, 30, 3, 163, 20, 222, 30, 40, 3, 30, 26, 53, 20, 20, 10, 3, 30, 153, 19, 30, 40, 20, 3, 3, 20, 30, 20, 10, 100, 33, 26, 30, 10, 10, 3, 20, 46, 30, 73, 50, 30, 3, 3, 60, 30, 3, 30, 32, 10, 30, 3, 30, 10, 90, 80, 10, 6, 10, 30, 26],
        },
    },
    Entry {
        id: Cow::Borrowed("music"),
        length: 164.6,
        terms: Terms::Built {
            text: "albumareaartistbandchecklistcomposcountridatedefaultdetaildiscographieditencyclopediaentrifactformgenrgroupheariditunlengthlistlooklookuplyricmanimbidmusicmusicbrainzmusiciannameopenoptionownplayquestionrecordreleasresultsangsearchsingsingersongsungsyntaxtracktypeyear",
            ends: &[5, 9, 15, 19, 28, 34, 41, 45, 52, 58, 69, 73, 85, 90, 94, 98, 102, 107, 111, 113, 117, 123, 127, 131, 137, 142, 146, 150, 155, 166, 174, 178, 182, 188, 191, 195, 203, 209, 215, 221, 225, 231, 235, 241, 245, 249, 255, 260, 264, 268],
            tenths: &[151, 10, 92, 90, 10, 30, 13, 10, 3, 10, 50, 12, 10, 10, 20, 20, 10, 6, 30, 3, 30, 10, 10, 13, 30, 30, 3, 23, 153, 56, 30, 13, 10, 3, 3, 30, 10, 56, 95, 3, 30, 33, 50, 50, 159, 60, 3, 40, 10, 10],
        },
    },
    Entry {
        id: Cow::Borrowed("notes"),
        length: 276.5,
        terms: Terms::Built {
            text: "addappendapplicasechangcheckchecklistclearcontaincountcreatdeletdirectoridownendexactfilefindfirstfoldergardengroceriideainclusinsidinsteaditemjotkeeplastlaterlinelistlooklsmakemdmemomilkmkdirnewnotenotebookoccuroldoncpatchpathplaceputreadregardlessremembremovreplacreturnsaveschedulsearchshopstrsubdirectoritaketextthroughtodotripwrite",
            ends: &[3, 9, 14, 18, 23, 28, 37, 42, 49, 54, 59, 64, 73, 77, 80, 85, 89, 93, 98, 104, 110, 117, 121, 127, 132, 139, 143, 146, 150, 154, 159, 163, 167, 171, 173, 177, 179, 183, 187, 192, 195, 199, 207, 212, 215, 218, 223, 227, 232, 235, 239, 249, 255, 260, 266, 272, 276, 283, 289, 293, 296, 308, 312, 316, 323, 327, 331, 336],
            tenths: &[63, 10, 20, 3, 10, 20, 300, 20, 10, 3, 10, 20, 78, 70, 3, 16, 60, 10, 3, 30, 3, 80, 3, 3, 15, 3, 80, 50, 20, 3, 20, 46, 280, 23, 20, 20, 3, 50, 20, 20, 10, 483, 30, 3, 10, 13, 20, 25, 3, 3, 100, 3, 50, 30, 16, 10, 20, 40, 20, 50, 20, 13, 40, 32, 20, 80, 20, 80],
        },
    },
    Entry {
        id: Cow::Borrowed("ntfy"),
        length: 143.7,
        terms: Terms::Built {
            text: "alertchecklisteachfollowgeneratgetguesshardlistmakemessagnamenewnotifnotifintfiphonepingpostprivatprofilpromptpublishpushsaysendshowshownstopsubscribtexttitltopicunsubscribuser",
            ends: &[5, 14, 18, 24, 31, 34, 39, 43, 47, 51, 57, 61, 64, 69, 75, 79, 84, 88, 92, 98, 104, 110, 117, 121, 124, 128, 132, 137, 141, 149, 153, 157, 162, 172, 176],
            tenths: &[40, 20, 10, 40, 20, 20, 10, 10, 30, 30, 30, 10, 20, 113, 50, 189, 120, 20, 20, 20, 10, 10, 20, 90, 10, 40, 20, 10, 30, 100, 3, 3, 229, 20, 20],
        },
    },
    Entry {
        id: Cow::Borrowed("places"),
        length: 112.5,
        terms: Terms::Built {
            text: "addressanythcalldentistforgetgymhomekeeplabellatitudlistlongitudmumnameofficplaceprofilremembremovsaveshortstoreunderupdatuserworkworth",
            ends: &[7, 12, 16, 23, 29, 32, 36, 40, 45, 52, 56, 64, 67, 71, 76, 81, 87, 93, 98, 102, 107, 112, 117, 122, 126, 130, 135],
            tenths: &[173, 3, 20, 3, 20, 20, 93, 20, 23, 3, 30, 3, 20, 6, 20, 266, 10, 53, 30, 170, 3, 20, 10, 10, 20, 73, 3],
        },
    },
    Entry {
        id: Cow::Borrowed("places_search"),
        length: 395.5,
        terms: Terms::Built {
            text: "addressalreadianswerapiaroundaskatmauthawaybakeribankbarbarberbikebillburgerbusibuycafecasechargercheapcheckchinescinemaclosestcoffeconverscoordindedefaultdelivdeliveridistancdowneatenablfarfindfirstfixfloristfoodgaregasgivengoodgooglgymhairdresshomehospithotelhourinvalidkeepkeptkeykindkyotolabellaptoplatleavlisbonlnglocatlondonlooklouvrlyonmallmanimarketmechanmetermuseumnamenearnearbinearestnevernewopenorderparkpastepersonpetrolpharmaciphonepizzaplacepubqueriquotaradiusratereadrefusrequestrestaurrestrictresultreviewsalonsavesaysearchsellservicsetsetupshopsshststationstorestudiosuchsupermarketsushitaketakeawaytakeouttextthaitownunituserwantwithinwithoutworkwrote",
            ends: &[7, 14, 20, 23, 29, 32, 35, 39, 43, 49, 53, 56, 62, 66, 70, 76, 80, 83, 87, 91, 98, 103, 108, 114, 120, 127, 132, 139, 146, 148, 155, 160, 168, 175, 179, 182, 187, 190, 194, 199, 202, 209, 213, 217, 220, 225, 229, 234, 237, 246, 250, 256, 261, 265, 272, 276, 280, 283, 287, 292, 297, 303, 306, 310, 316, 319, 324, 330, 334, 339, 343, 347, 351, 357, 363, 368, 374, 378, 382, 388, 395, 400, 403, 407, 412, 416, 421, 427, 433, 441, 446, 451, 456, 459, 464, 469, 475, 479, 483, 488, 495, 502, 510, 516, 522, 527, 531, 534, 540, 544, 550, 553, 558, 562, 565, 567, 574, 579, 585, 589, 600, 605, 609, 617, 624, 628, 632, 636, 640, 644, 648, 654, 661, 665, 670],
            tenths: &[23, 3, 10, 33, 33, 3, 30, 20, 30, 50, 30, 80, 30, 23, 10, 30, 10, 20, 53, 20, 20, 20, 16, 30, 30, 30, 30, 3, 10, 10, 9, 50, 30, 10, 3, 50, 10, 3, 50, 10, 20, 30, 50, 10, 50, 10, 20, 113, 30, 30, 23, 30, 50, 50, 10, 3, 10, 86, 10, 10, 3, 20, 13, 3, 20, 13, 10, 3, 3, 3, 13, 30, 6, 60, 30, 3, 30, 23, 70, 200, 60, 3, 20, 110, 30, 30, 3, 3, 30, 53, 20, 53, 229, 30, 10, 10, 10, 10, 10, 10, 10, 100, 10, 10, 60, 30, 13, 30, 60, 20, 20, 20, 20, 133, 10, 3, 50, 60, 60, 10, 30, 60, 30, 30, 30, 30, 20, 20, 10, 20, 10, 10, 10, 13, 3],
        },
    },
    Entry {
        id: Cow::Borrowed("recipes"),
        length: 420.6,
        terms: Terms::Built {
            text: "againstareaarrabiataavocadobakebananabeefbiryaniboilbreadbreakfastbreastbroccolibroilbrownibuttercakecaloricasserolcategoricheeschickenchickpeachinescinnamoncookcookicuisincupcakcurridefaultdefrostdeglazdessertdietaridinnerdishdougheggfindfishflagflourfoodfrigarlicglutengrillhealthiidideaindianingrediitalianjapaneskneadlasagnlasagnaleavlinklookuplunchmainmakemanimarinmealmeasurmenumenusmexicanmicrowavmuffinnamenoodlnumberomelettovenpancakpastapersonpiepizzapoachporkpotatopreferpreparqueriquickrandomreadrecipricerisottoroastsaladsandwichsaucsautseafoodsearchservsimmersnacksoupsourcspaghettispicespinachsteakstepsuchsuggesttablespoonteaspoonthaithawthemealdbtonightturkeyveganvegetvegetarianvideozest",
            ends: &[7, 11, 20, 27, 31, 37, 41, 48, 52, 57, 66, 72, 80, 85, 91, 97, 101, 107, 115, 123, 128, 135, 143, 149, 157, 161, 166, 172, 178, 183, 190, 197, 203, 210, 217, 223, 227, 232, 235, 239, 243, 247, 252, 256, 259, 265, 271, 276, 283, 285, 289, 295, 302, 309, 316, 321, 327, 334, 338, 342, 348, 353, 357, 361, 365, 370, 374, 380, 384, 389, 396, 404, 410, 414, 419, 425, 432, 436, 442, 447, 453, 456, 461, 466, 470, 476, 482, 488, 493, 498, 504, 508, 513, 517, 524, 529, 534, 542, 546, 550, 557, 563, 567, 573, 578, 582, 587, 596, 601, 608, 613, 617, 621, 628, 638, 646, 650, 654, 663, 670, 676, 681, 686, 696, 701, 705],
            tenths: &[20, 16, 3, 30, 110, 20, 30, 30, 30, 50, 60, 3, 30, 30, 30, 30, 30, 30, 30, 16, 30, 33, 20, 30, 30, 100, 30, 43, 30, 50, 6, 30, 30, 30, 20, 110, 43, 30, 60, 10, 30, 20, 30, 60, 30, 30, 30, 30, 30, 13, 80, 30, 126, 36, 33, 30, 50, 30, 3, 10, 30, 30, 13, 80, 3, 30, 53, 10, 30, 30, 33, 30, 30, 16, 30, 10, 30, 30, 80, 30, 20, 30, 30, 30, 30, 60, 20, 30, 3, 20, 13, 10, 199, 30, 30, 30, 30, 30, 30, 30, 3, 23, 60, 30, 30, 30, 10, 30, 30, 20, 30, 10, 3, 20, 60, 60, 30, 30, 20, 40, 30, 30, 30, 50, 10, 30],
        },
    },
    Entry {
        id: Cow::Borrowed("spotify"),
        length: 317.4,
        terms: Terms::Built {
            text: "accountaddaddressalbumappearartistaskauthbandbluebrowserclassiccomconcertoconnectcountricreatdefaultdescriptdiscodjeachedmemptifalsfilterfindfolkgenrgivenhearhiphithophousidindijazzlengthlinklistenlookmakemanimetalmusemusicnameneednewnumberoncopenoperaorderotherotherwisperpianoplayplaylistpopprivatprofilpunkputqueueradiorapreggaresultreturnroadrockrunsaysearchsentshowshownshufflsignsingersongsoulspotifistreamsuchsymphonitaketechnotimetooltoptracktriptuneunderunlessuntiluriuserwaitwhetherwordworkoutyear",
            ends: &[7, 10, 17, 22, 28, 34, 37, 41, 45, 49, 56, 63, 66, 74, 81, 88, 93, 100, 108, 113, 115, 119, 122, 127, 131, 137, 141, 145, 149, 154, 158, 161, 164, 167, 171, 173, 177, 181, 187, 191, 197, 201, 205, 209, 214, 218, 223, 227, 231, 234, 240, 243, 247, 252, 257, 262, 270, 273, 278, 282, 290, 293, 299, 305, 309, 312, 317, 322, 325, 330, 336, 342, 346, 350, 353, 356, 362, 366, 370, 375, 381, 385, 391, 395, 399, 406, 412, 416, 424, 428, 434, 438, 442, 445, 450, 454, 458, 463, 469, 474, 477, 481, 485, 492, 496, 503, 507],
            tenths: &[30, 73, 10, 120, 3, 73, 10, 20, 30, 30, 10, 30, 16, 30, 20, 30, 30, 9, 3, 30, 30, 10, 30, 10, 3, 3, 23, 30, 30, 10, 30, 30, 20, 30, 30, 16, 30, 30, 10, 26, 50, 3, 20, 3, 30, 3, 160, 16, 10, 10, 10, 10, 26, 30, 13, 10, 10, 10, 30, 90, 199, 30, 13, 13, 30, 50, 20, 30, 30, 30, 3, 10, 20, 30, 10, 10, 30, 10, 10, 3, 30, 50, 30, 100, 30, 285, 20, 3, 30, 10, 30, 10, 10, 20, 152, 20, 60, 3, 10, 10, 26, 33, 10, 3, 3, 20, 3],
        },
    },
    Entry {
        id: Cow::Borrowed("stack"),
        length: 127.6,
        terms: Terms::Built {
            text: "acceptaddressanothansweraskubuntublockcodecompildefaulterrorexceptexchangfirstfixkeptlifetimmanimathmessagnumberoverflowproblemprogramquestionreadrustscoresearchserverfaultsitestackstackoverflowsuperustagtechnictextthrowtitltopunixvote",
            ends: &[6, 13, 18, 24, 33, 38, 42, 48, 55, 60, 66, 73, 78, 81, 85, 92, 96, 100, 106, 112, 120, 127, 134, 142, 146, 150, 155, 161, 172, 176, 181, 194, 201, 204, 211, 215, 220, 224, 227, 231, 235],
            tenths: &[13, 3, 10, 113, 3, 10, 60, 50, 12, 70, 50, 53, 13, 20, 10, 23, 6, 3, 50, 3, 100, 10, 60, 72, 20, 23, 10, 53, 3, 16, 206, 36, 3, 13, 10, 10, 20, 10, 20, 3, 3],
        },
    },
    Entry {
        id: Cow::Borrowed("steam"),
        length: 221.0,
        terms: Terms::Built {
            text: "accountachievaddressapiappbitchecklistcomcustomdatedealdefaultdescriptdetaildevelopdigitdiscountfactfeaturfirstfriendgamegenrhouridkeylastlatestlistlookmademanimetacritnameneednewofferonlinownpagepcpersonplatformplayplayerplaytimpriceprofilpublicpublishreleassalescoresearchsellershortshowspecialstatstatussteamsteamcommunsteamidstoresummaritopunlockuserweekwhetherword",
            ends: &[7, 13, 20, 23, 26, 29, 38, 41, 47, 51, 55, 62, 70, 76, 83, 88, 96, 100, 106, 111, 117, 121, 125, 129, 131, 134, 138, 144, 148, 152, 156, 160, 168, 172, 176, 179, 184, 189, 192, 196, 198, 204, 212, 216, 222, 229, 234, 240, 246, 253, 259, 263, 268, 274, 280, 285, 289, 296, 300, 306, 311, 322, 329, 334, 341, 344, 350, 354, 358, 365, 369],
            tenths: &[10, 90, 15, 30, 46, 9, 6, 9, 9, 10, 20, 12, 10, 30, 10, 9, 20, 10, 50, 13, 20, 265, 10, 30, 25, 30, 10, 10, 6, 20, 10, 39, 20, 41, 30, 10, 10, 30, 10, 30, 30, 9, 20, 53, 40, 30, 30, 69, 30, 10, 20, 30, 10, 36, 10, 10, 20, 10, 20, 10, 402, 9, 9, 56, 20, 10, 20, 70, 30, 10, 3],
        },
    },
    Entry {
        id: Cow::Borrowed("system"),
        length: 151.0,
        terms: Terms::Built {
            text: "answerappaskbackupbatteribyechatclosecompactcomputcontextconverscostcountcpudescribdiskendexitfarfreefullgoodbyhistorihostnaminfokeptleavloadlongmachinmemoriolderoncoperpartquitsessionshortshowshownshrinkspacespentsummarissystemtimetokenuptimusaguser",
            ends: &[6, 9, 12, 18, 25, 28, 32, 37, 44, 50, 57, 64, 68, 73, 76, 83, 87, 90, 94, 97, 101, 105, 111, 118, 125, 129, 133, 137, 141, 145, 151, 157, 162, 165, 169, 173, 177, 184, 189, 193, 198, 204, 209, 214, 222, 228, 232, 237, 242, 246, 250],
            tenths: &[20, 40, 10, 10, 40, 50, 20, 30, 50, 60, 10, 10, 80, 10, 40, 10, 60, 10, 60, 20, 30, 20, 30, 40, 30, 20, 10, 20, 10, 20, 70, 60, 10, 10, 10, 10, 60, 10, 10, 10, 10, 20, 20, 50, 10, 60, 10, 60, 40, 90, 10],
        },
    },
    Entry {
        id: Cow::Borrowed("talk"),
        length: 401.0,
        terms: Terms::Built {
            text: "advicannoyappreciawesombetterbetweenbirthdayborebrieflicaptioncasualchecklistcoincompilcomplexcomposconceptcooldicedifferdividdraftessayexistexplainexplanfedfeelflipformalfriendlierfunnigigglgoodgrammargrategreathahahaikuheadhellohilariideaimprovinforminterfacjokelaughlearnlifelimericklistlollovelyricmathmeanmessagmindminusmonadmultiplinamenevernicenightparagraphparaphraspassivpercentplotpluspoempolishproofreadpunrandomrecursrephrasrewordrewritrhymeriddlrollrootseasentencsetsimplisleepslogansonnetsoundspeechspellsquarstorisuggestsumsummaritailtalethanktheorithinktimetiptoasttonetosstraitunderstandversvoicwaywishworkwriteyourself",
            ends: &[5, 10, 17, 23, 29, 36, 44, 48, 55, 62, 68, 77, 81, 87, 94, 100, 107, 111, 115, 121, 126, 131, 136, 141, 148, 154, 157, 161, 165, 171, 181, 186, 191, 195, 202, 207, 212, 216, 221, 225, 230, 236, 240, 246, 252, 260, 264, 269, 274, 278, 286, 290, 293, 297, 302, 306, 310, 316, 320, 325, 330, 338, 342, 347, 351, 356, 365, 374, 380, 387, 391, 395, 399, 405, 414, 417, 423, 429, 436, 442, 448, 453, 458, 462, 466, 469, 476, 479, 485, 490, 496, 502, 507, 513, 518, 523, 528, 535, 538, 545, 549, 553, 558, 564, 569, 573, 576, 581, 585, 589, 594, 604, 608, 612, 615, 619, 623, 628, 636],
            tenths: &[30, 30, 30, 30, 50, 50, 30, 30, 30, 30, 30, 20, 30, 20, 30, 30, 30, 30, 30, 50, 30, 30, 30, 30, 50, 30, 30, 60, 30, 30, 20, 30, 30, 30, 30, 30, 50, 30, 30, 30, 30, 30, 50, 30, 30, 30, 80, 30, 60, 30, 30, 20, 30, 30, 30, 60, 30, 30, 30, 30, 30, 30, 80, 30, 30, 30, 20, 30, 30, 30, 30, 30, 50, 30, 50, 30, 30, 30, 30, 30, 50, 60, 30, 30, 30, 20, 30, 20, 30, 20, 30, 30, 50, 30, 30, 30, 30, 60, 30, 30, 30, 30, 30, 30, 30, 50, 50, 30, 30, 30, 30, 30, 30, 30, 30, 30, 20, 50, 50],
        },
    },
    Entry {
        id: Cow::Borrowed("tickets"),
        length: 216.0,
        terms: Terms::Built {
            text: "activaddanothbacklogbikeblockchecklistclosecodecreatcycldatedefaultdepdependdescriptdetaildrawelsendeverifinishfirstfixidinsteadkeepkeptlinelistmakemarknotenothopenoptionownpersonprogressrecordrefusreopensayschedulshowstartstatusstillt1t3tasktickettktodotooltracktreeuserwaitwhoseworkworth",
            ends: &[5, 8, 13, 20, 24, 29, 38, 43, 47, 52, 56, 60, 67, 70, 76, 84, 90, 94, 97, 100, 105, 111, 116, 119, 121, 128, 132, 136, 140, 144, 148, 152, 156, 160, 164, 170, 173, 179, 187, 193, 198, 204, 207, 214, 218, 223, 229, 234, 236, 238, 242, 248, 250, 254, 258, 263, 267, 271, 275, 280, 284, 289],
            tenths: &[16, 90, 30, 50, 20, 20, 120, 63, 10, 50, 10, 20, 16, 40, 33, 20, 3, 13, 3, 3, 13, 30, 3, 20, 21, 10, 3, 3, 3, 130, 10, 30, 76, 3, 26, 20, 10, 100, 26, 10, 10, 10, 10, 20, 30, 20, 20, 10, 3, 15, 130, 440, 10, 113, 10, 20, 30, 20, 46, 3, 10, 3],
        },
    },
    Entry {
        id: Cow::Borrowed("timers"),
        length: 121.5,
        terms: Terms::Built {
            text: "1h3025magoalertbarecheckcountdowndefaultduratdureelapsexistfinalfinishhourleavleftlengthlongmayminutnamenumberpeoplremindsaysecondsessionsetshowstartstopstopwatchteatimetimeruserwantwithoutwrite",
            ends: &[4, 7, 10, 15, 19, 24, 33, 40, 45, 49, 54, 59, 64, 70, 74, 78, 82, 88, 92, 95, 100, 104, 110, 115, 121, 124, 130, 137, 140, 144, 149, 153, 162, 165, 169, 174, 178, 182, 189, 194],
            tenths: &[13, 13, 10, 30, 3, 26, 93, 6, 10, 10, 10, 3, 10, 10, 90, 3, 33, 3, 30, 3, 143, 10, 3, 3, 50, 10, 13, 30, 20, 10, 50, 56, 63, 20, 60, 232, 10, 10, 10, 3],
        },
    },
    Entry {
        id: Cow::Borrowed("travel"),
        length: 306.6,
        terms: Terms::Built {
            text: "accidaddressadjustairportallowanothaskbadbeachbikebuscabcarclearclosurcommutcongestconstructcycldefaultdescriptdetourdirectdistancdriveeachendestimetafarfixflightflowfogfootforecastformfreefreewayfridaygivenheavihighwayhomehouricejamjourneylabellatlivelnglocallongmaneuvmaymetromotorwaymuseumnameoriginosrmpariparkpersonplacepublicrainrideroadroadblockroadworkroutrulerushsamesavesnowstartstationstepstormsubwaysuchtaketaxithumbtimetodaytolltomorrowtraffictraintransittransporttraveltripturnuberwalkwayweatherwork",
            ends: &[5, 12, 18, 25, 30, 35, 38, 41, 46, 50, 53, 56, 59, 64, 70, 76, 83, 92, 96, 103, 111, 117, 123, 130, 135, 139, 142, 147, 150, 153, 156, 162, 166, 169, 173, 181, 185, 189, 196, 202, 207, 212, 219, 223, 227, 230, 233, 240, 245, 248, 252, 255, 260, 264, 270, 273, 278, 286, 292, 296, 302, 306, 310, 314, 320, 325, 331, 335, 339, 343, 352, 360, 364, 368, 372, 376, 380, 384, 389, 396, 400, 405, 411, 415, 419, 423, 428, 432, 437, 441, 449, 456, 461, 468, 477, 483, 487, 491, 495, 499, 502, 509, 513],
            tenths: &[60, 9, 20, 20, 10, 20, 10, 10, 20, 69, 30, 30, 29, 3, 60, 30, 30, 30, 59, 15, 3, 60, 130, 40, 89, 10, 9, 30, 30, 60, 10, 30, 10, 3, 29, 3, 6, 10, 30, 3, 10, 3, 30, 39, 40, 3, 30, 30, 19, 9, 10, 9, 3, 110, 10, 10, 30, 30, 20, 9, 6, 30, 20, 20, 10, 39, 20, 16, 30, 100, 60, 30, 60, 10, 40, 6, 19, 13, 9, 30, 10, 3, 30, 10, 70, 30, 10, 143, 3, 30, 3, 110, 50, 30, 20, 80, 49, 20, 30, 89, 20, 13, 32],
        },
    },
    Entry {
        id: Cow::Borrowed("utilities"),
        length: 313.6,
        terms: Terms::Built {
            text: "acramountanothantonymareaarithmetaskaudbetweenbrbytecadcelsiuscheckchinescncodeconversconvertcupcurrencdatadedefaultdefindefinitdictionaridollarenephemereureuroexactexamplexchangfahrenheitfeetflourfrfrancfrenchgallongbpgermangibgoodgramhappiinchinrinsteadisoitalianjapanesjpikilokilometkmlanguaglblengthletterliterlooklookupmanimassmeanmetermilemornmphmymemoriofflinoppositoriginouncpartpesopluralpoundpronouncpronunciptquartratereferregionrupesayshortspanishspeechspeedspellsuchsynonymtemperaturtexttimetodaytranslatunitusduservolumwordyenyourselfzh",
            ends: &[3, 9, 14, 21, 25, 33, 36, 39, 46, 48, 52, 55, 62, 67, 73, 75, 79, 86, 93, 96, 103, 107, 109, 116, 121, 128, 138, 144, 146, 153, 156, 160, 165, 171, 178, 188, 192, 197, 199, 204, 210, 216, 219, 225, 228, 232, 236, 241, 245, 248, 255, 258, 265, 272, 275, 279, 286, 288, 295, 297, 303, 309, 314, 318, 324, 328, 332, 336, 341, 345, 349, 352, 360, 366, 373, 379, 383, 387, 391, 397, 402, 410, 418, 420, 425, 429, 434, 440, 444, 447, 452, 459, 465, 470, 475, 479, 486, 496, 500, 504, 509, 517, 521, 524, 528, 533, 537, 540, 548, 550],
            tenths: &[3, 13, 20, 30, 10, 10, 10, 30, 20, 3, 3, 30, 50, 20, 30, 3, 15, 30, 86, 50, 66, 10, 3, 3, 50, 30, 80, 50, 6, 20, 30, 50, 10, 10, 50, 50, 30, 20, 3, 30, 50, 30, 30, 30, 3, 20, 50, 20, 30, 30, 10, 3, 30, 50, 30, 30, 30, 23, 29, 3, 10, 3, 30, 13, 20, 50, 10, 90, 30, 50, 20, 3, 10, 10, 30, 10, 30, 10, 30, 30, 50, 30, 40, 3, 30, 60, 10, 3, 30, 50, 10, 30, 10, 10, 80, 6, 50, 10, 43, 10, 10, 196, 56, 33, 10, 10, 106, 50, 10, 3],
        },
    },
    Entry {
        id: Cow::Borrowed("weather"),
        length: 232.1,
        terms: Terms::Built {
            text: "bootchilliciticlimatcloudcloudicoatcoldcoldercoldestcurrentdaydefaultdegrefirstfogforecastfrancfreezfrostglovehailheathomehothottesthumidjacketlabellatlayerlnglocatlondonlyonmeteonameniceopenoutsidovercastparipersonplaceprecipitpreferquestionrainraincoatrainisavescarfshortsnowstormsuchsunsunnisunrissunscreensunsetsweatertaketemperaturthundertmrwtodaytomorrowtonightumbrellaunitwarmwarmerwarmestwearweatherweekweekendwindwindiwork",
            ends: &[4, 10, 14, 20, 25, 31, 35, 39, 45, 52, 59, 62, 69, 74, 79, 82, 90, 95, 100, 105, 110, 114, 118, 122, 125, 132, 137, 143, 148, 151, 156, 159, 164, 170, 174, 179, 183, 187, 191, 197, 205, 209, 215, 220, 228, 234, 242, 246, 254, 259, 263, 268, 273, 277, 282, 286, 289, 294, 300, 309, 315, 322, 326, 336, 343, 347, 352, 360, 367, 375, 379, 383, 389, 396, 400, 407, 411, 418, 422, 427, 431],
            tenths: &[30, 30, 3, 30, 30, 30, 30, 50, 30, 30, 10, 43, 3, 60, 3, 30, 123, 3, 30, 30, 30, 30, 30, 13, 30, 30, 60, 50, 3, 3, 30, 3, 10, 20, 3, 10, 3, 60, 10, 50, 30, 3, 10, 13, 10, 10, 10, 80, 30, 30, 13, 30, 30, 80, 30, 10, 30, 30, 10, 30, 10, 30, 20, 60, 30, 30, 23, 20, 20, 50, 10, 30, 30, 30, 50, 110, 20, 20, 40, 50, 13],
        },
    },
    Entry {
        id: Cow::Borrowed("web"),
        length: 218.4,
        terms: Terms::Built {
            text: "addressapplarticlbrowschromiumcontentcurrentdatedefaultdocumentduckduckgoelectemptienablendeventfactfindfirstfoundfullgooglhappenheadlessheadlinhttphttpsjavascriptlatelatestlinklookmaninewestnewsnumberonlinopenpagepolitpricereadrecentresultreturnrunscrapesearchshareshowsnippetsourcstocksubjectsummaristexttitltodayurlwebwebpagwebsitworldwww",
            ends: &[7, 11, 17, 22, 30, 37, 44, 48, 55, 63, 73, 78, 83, 88, 91, 96, 100, 104, 109, 114, 118, 123, 129, 137, 144, 148, 153, 163, 167, 173, 177, 181, 185, 191, 195, 201, 206, 210, 214, 219, 224, 228, 234, 240, 246, 249, 255, 261, 266, 270, 277, 282, 287, 294, 302, 306, 310, 315, 318, 321, 327, 333, 338, 341],
            tenths: &[16, 20, 73, 70, 10, 10, 30, 10, 6, 10, 10, 20, 10, 10, 10, 20, 10, 20, 10, 10, 6, 50, 60, 10, 80, 30, 6, 40, 10, 50, 40, 50, 6, 10, 103, 10, 20, 50, 206, 20, 50, 80, 10, 3, 10, 30, 40, 133, 30, 10, 10, 10, 80, 13, 20, 10, 10, 20, 30, 213, 30, 50, 20, 30],
        },
    },
    Entry {
        id: Cow::Borrowed("wiki"),
        length: 165.5,
        terms: Terms::Built {
            text: "adaalternanswerarticlbiographicasecuridefaultdefindefinitdescribdescripteachempirexactexplainfactfewfindfullgavegivegrephistoriintroductjazzkeepkoalalighthouslinelinklonglooklovelacmanimarimatchmeanmoonnamenumberofflinpageparagraphpartpathpersonphotosynthesiplaceplainprofilquestionquickreadreturnromansavesearchsectionseparseversizesnippetsubjectsummaritapirtexttitlwholewikiwikipediaword",
            ends: &[3, 9, 15, 21, 30, 34, 38, 45, 50, 57, 64, 72, 76, 81, 86, 93, 97, 100, 104, 108, 112, 116, 120, 127, 136, 140, 144, 149, 158, 162, 166, 170, 174, 181, 185, 189, 194, 198, 202, 206, 212, 218, 222, 231, 235, 239, 245, 258, 263, 268, 274, 282, 287, 291, 297, 302, 306, 312, 319, 324, 329, 333, 340, 347, 354, 359, 363, 367, 372, 376, 385, 389],
            tenths: &[20, 3, 10, 82, 50, 3, 20, 6, 30, 30, 70, 10, 10, 20, 16, 30, 30, 10, 33, 43, 3, 6, 30, 50, 10, 20, 20, 20, 20, 23, 20, 10, 43, 20, 6, 20, 3, 60, 20, 10, 10, 20, 20, 10, 10, 13, 10, 20, 10, 10, 10, 10, 10, 10, 10, 20, 23, 36, 10, 3, 3, 10, 10, 10, 30, 20, 23, 29, 10, 159, 133, 3],
        },
    },
];

/// This file's text for `entries`, sorted by id.
#[cfg(test)]
pub(super) fn source(entries: &[Entry]) -> String {
    let head = include_str!("built.rs");
    let start = head
        .find("#[rustfmt::skip]\npub(crate) static BUILT")
        .unwrap_or(head.len());
    let mut out = head[..start].to_string();
    out.push_str("#[rustfmt::skip]\npub(crate) static BUILT: &[Entry] = &[\n");
    for entry in entries {
        let mut text = String::new();
        let mut ends = Vec::new();
        let mut tenths = Vec::new();
        for (term, weight) in entry.terms() {
            text.push_str(term);
            ends.push(text.len().to_string());
            let weight = (weight * 10.0).round();
            assert!(
                (0.0..=65535.0).contains(&weight),
                "{}: {term} weighs {weight}",
                entry.id
            );
            tenths.push(weight.to_string());
        }
        assert!(
            text.len() <= usize::from(u16::MAX),
            "{}'s terms are too long",
            entry.id
        );
        out.push_str(&format!(
            "    Entry {{\n        id: Cow::Borrowed({:?}),\n        length: {:.1},\n        terms: Terms::Built {{\n            text: {text:?},\n            ends: &[{}],\n            tenths: &[{}],\n        }},\n    }},\n",
            entry.id.as_ref(),
            entry.length(),
            ends.join(", "),
            tenths.join(", "),
        ));
    }
    out.push_str("];\n");
    let tail = head
        .find("\n/// This file's text for `entries`")
        .unwrap_or(head.len());
    out.push_str(&head[tail..]);
    out
}
