// yt-gst — inserting a decoder after the appsrc: pure rewriting, then real parsing of every result.
import AppSrcFeeder
import GstPlayer
import TestSupport
import Testing

@Suite struct LaunchTests {
    @Test(arguments: [
        // The default pipeline and --sink forms.
        (
            "appsrc name=src ! audioconvert ! audioresample ! autoaudiosink",
            "appsrc name=src ! decodebin ! audioconvert ! audioresample ! autoaudiosink"
        ),
        (
            "appsrc name=src ! audioconvert ! audioresample ! wavenc ! filesink location=/tmp/a.wav",
            "appsrc name=src ! decodebin ! audioconvert ! audioresample ! wavenc ! filesink location=/tmp/a.wav"
        ),
        // No spaces around the link.
        ("appsrc name=src!audioconvert!fakesink", "appsrc name=src ! decodebin!audioconvert!fakesink"),
        // Properties before and after the name, quoted values with spaces, '!' and escaped quotes inside.
        (
            "appsrc is-live=true name=src caps=\"audio/x-raw, rate=(int)8000 ! x\" ! queue ! fakesink",
            "appsrc is-live=true name=src caps=\"audio/x-raw, rate=(int)8000 ! x\" ! decodebin ! queue ! fakesink"
        ),
        ("appsrc name=\"src\" format=time ! fakesink", "appsrc name=\"src\" format=time ! decodebin ! fakesink"),
        ("appsrc name='src' ! fakesink", "appsrc name='src' ! decodebin ! fakesink"),
        ("appsrc name = src ! fakesink", "appsrc name = src ! decodebin ! fakesink"),
        ("appsrc caps=\"a\\\"b\" name=src ! fakesink", "appsrc caps=\"a\\\"b\" name=src ! decodebin ! fakesink"),
        // The appsrc not first, with another source and another appsrc.
        (
            "audiotestsrc ! mix. appsrc name=other ! fakesink appsrc name=src ! mix. audiomixer name=mix ! fakesink",
            "audiotestsrc ! mix. appsrc name=other ! fakesink appsrc name=src ! decodebin ! mix. audiomixer name=mix ! fakesink"
        ),
        // Linked through a reference, and inside a bin.
        (
            "fakesink name=out appsrc name=src src. ! queue ! out.",
            "fakesink name=out appsrc name=src src. ! decodebin ! queue ! out."
        ),
        ("( appsrc name=src ! queue ) ! fakesink", "( appsrc name=src ! decodebin ! queue ) ! fakesink"),
        // A caps filter right after the source: the decoder goes before it.
        (
            "appsrc name=src ! audio/x-raw,format=S16LE ! fakesink",
            "appsrc name=src ! decodebin ! audio/x-raw,format=S16LE ! fakesink"
        ),
    ])
    func insertsTheDecoderRightAfterTheSource(launch: String, expected: String) {
        #expect(Launch.insertingDecoder(afterSource: "src", in: launch) == expected)
    }

    @Test(arguments: [
        "appsrc name=src ! decodebin ! audioconvert ! fakesink",  // already decoding
        "appsrc name=src ! decodebin3 ! fakesink",
        "audiotestsrc ! fakesink",  // no such element
        "appsrc name=source ! fakesink",  // another name
        "appsrc name=src",  // not linked
        "fakesink name=src.x",  // not an element named src
    ])
    func leavesOtherDescriptionsUnchanged(launch: String) {
        #expect(Launch.insertingDecoder(afterSource: "src", in: launch) == launch)
    }

    @Test func aCustomDecoderAndAnotherName() {
        #expect(
            Launch.insertingDecoder(afterSource: "in", in: "appsrc name=in ! fakesink", decoder: "adpcmdec")
                == "appsrc name=in ! adpcmdec ! fakesink")
    }

    /// Every rewritten description still parses, and its appsrc still links to something.
    @Test func resultsParse() throws {
        Gst.initialize()
        for launch in [
            "appsrc name=src ! audioconvert ! audioresample ! fakesink",
            "appsrc is-live=true name=src caps=\"audio/x-raw, rate=(int)8000\" ! queue ! fakesink",
            "fakesink name=out appsrc name=src src. ! queue ! out.",
            "audiotestsrc ! mix. appsrc name=src ! mix. audiomixer name=mix ! fakesink",
        ] {
            let rewritten = Launch.insertingDecoder(afterSource: "src", in: launch)
            #expect(rewritten != launch)
            let pipeline = try Pipeline(launch: rewritten)
            _ = try pipeline.appSource(named: "src")
        }
    }

    @Test func elementsAsWrittenWithPropertiesInOrder() {
        let launch =
            "appsrc name=src ! audio/x-raw,rate=8000 ! filesink location = \"a b!.wav\" sync=false  src. ! fakesink"
        let elements = Launch.elements(in: launch)
        #expect(elements.map(\.factory) == ["appsrc", "filesink", "fakesink"])
        let filesink = elements[1]
        #expect(filesink.properties.map(\.key) == ["location", "sync"])
        #expect(filesink.value(of: "location") == "a b!.wav")
        // Ranges point at the text as written, spaces around '=' and quotes included.
        let scalars = Array(launch.unicodeScalars)
        let written = filesink.properties.map { String(String.UnicodeScalarView(scalars[$0.range])) }
        #expect(written == ["location = \"a b!.wav\"", "sync=false"])
        #expect(String(String.UnicodeScalarView(scalars[filesink.factoryRange])) == "filesink")
    }
}
