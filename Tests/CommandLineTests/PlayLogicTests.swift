// yt-gst — the command line's pure logic: keys, times, natural order, playlists, argument parsing, status text.
import AppSrcFeeder
import GstPlayer
import Testing

@testable import yt_gst

@Suite struct KeyTests {
    @Test(
        arguments: [
            ([0x20], [Key.char(" ")]), ([0x1B, 0x5B, 0x43], [.right]), ([0x1B, 0x5B, 0x44], [.left]),
            ([0x1B, 0x5B, 0x41, 0x1B, 0x5B, 0x42], [.up, .down]),
            ([0x1B, 0x5B, 0x31, 0x3B, 0x32, 0x43], [.shiftRight]),
            ([0x1B, 0x5B, 0x35, 0x7E], [.pageUp]), ([0x1B, 0x5B, 0x36, 0x7E], [.pageDown]), ([0x1B], [.escape]),
            ([0x71, 0x0D], [.char("q"), .enter]), ([0x7F], [.backspace]),
        ] as [([UInt8], [Key])])
    func decodes(bytes: [UInt8], keys: [Key]) {
        var decoder = KeyDecoder()
        #expect(decoder.feed(bytes) == keys)
    }

    @Test func aSplitEscapeSequenceWaitsForTheRest() {
        var decoder = KeyDecoder()
        #expect(decoder.feed([0x1B], complete: false) == [])
        #expect(decoder.feed([0x5B, 0x43]) == [.right])
    }

    @Test func actions() {
        #expect(Keys.action(for: .char(" ")) == .togglePause)
        #expect(Keys.action(for: .right) == .seek(5))
        #expect(Keys.action(for: .pageDown) == .seek(-60))
        #expect(Keys.action(for: .up) == .volume(5))
        #expect(Keys.action(for: .char("+")) == .rate(1))
        #expect(Keys.action(for: .char(">")) == .next)
        #expect(Keys.action(for: .char("<")) == .previous)
        #expect(Keys.action(for: .escape) == .quit)
        #expect(Keys.action(for: .char("?")) == .showKeys)
        #expect(Keys.action(for: .char("z")) == nil)
    }

    @Test(arguments: [("83.5", 83.5), ("1:23", 83.0), ("1:02:03", 3723.0), ("0", 0.0), ("0:05.5", 5.5)])
    func times(text: String, seconds: Double) {
        #expect(TimeText.seconds(text) == seconds)
    }

    @Test(arguments: ["", "abc", "1:75", "-3", "1:2:3:4", "1.5:00"])
    func badTimes(text: String) {
        #expect(TimeText.seconds(text) == nil)
    }
}

@Suite struct PlaylistTests {
    @Test func naturalOrder() {
        let names = ["track10.wav", "Track2.wav", "track1.wav", "a/b.wav", "track02b.wav"]
        #expect(
            names.sorted(by: NaturalOrder.less) == [
                "a/b.wav", "track1.wav", "Track2.wav", "track02b.wav", "track10.wav",
            ])
    }

    @Test func m3u() {
        let text = "\u{FEFF}#EXTM3U\r\n#EXTINF:3,One\r\none.wav\r\n\r\n/abs/two.wav\nfile:///x/three.wav\n"
        #expect(Playlist.parseM3U(text) == ["one.wav", "/abs/two.wav", "/x/three.wav"])
    }

    @Test func pls() {
        let text = "[playlist]\nFile2=b.wav\nTitle2=B\nFile1=a.wav\nfile10=j.wav\nNumberOfEntries=3\nVersion=2\n"
        #expect(Playlist.parsePLS(text) == ["a.wav", "b.wav", "j.wav"])
    }

    @Test func extensions() {
        #expect(Playlist.fileExtension("/a.b/c.M3U8") == "m3u8")
        #expect(Playlist.fileExtension("/a.b/c") == "")
        #expect(Playlist.fileExtension(".hidden") == "")
    }
}

@Suite struct ArgumentTests {
    @Test func optionalNumberAfterAFlag() throws {
        let spec = PlayCommand.spec
        #expect(try spec.parse(["--loop", "a.wav"]).flags.contains("loop"))
        #expect(try spec.parse(["--loop", "a.wav"]).operands == ["a.wav"])
        #expect(try spec.parse(["--loop", "3", "a.wav"]).value("loop") == "3")
        #expect(try spec.parse(["--loop=2", "a.wav"]).value("loop") == "2")
        #expect(try PlayCommand(spec.parse(["--loop", "a.wav"])).loopCount == 0)
        #expect(try PlayCommand(spec.parse(["a.wav"])).loopCount == nil)
    }

    @Test func repeatedOptionsKeepEveryValue() throws {
        let parsed = try PlayCommand.spec.parse(["--set", "a=1", "--set=b=x y", "f.wav", "--", "--not-an-option"])
        #expect(parsed.values["set"] == ["a=1", "b=x y"])
        #expect(parsed.operands == ["f.wav", "--not-an-option"])
    }

    @Test(arguments: [
        ["a.wav", "--volume", "2"], ["a.wav", "--rate", "0"], ["a.wav", "--start", "1:99"],
        ["a.wav", "--start", "5", "--end", "4"], ["a.wav", "--status", "xml"], ["--bogus"],
    ])
    func invalidPlayOptions(arguments: [String]) {
        #expect(throws: UsageError.self) { try PlayCommand(PlayCommand.spec.parse(arguments)) }
    }
}

@Suite struct StatusTests {
    let snapshot = PlaybackSnapshot(
        state: .playing, file: "/music/some rather long file name.wav", index: 1, count: 12, position: 83.4,
        duration: 240, volume: 0.8, muted: false, rate: 1.25, loopA: 10, loopB: 20,
        levels: [ChannelLevel(peak: -3, rms: -12.34), ChannelLevel(peak: -60, rms: -.infinity)])

    @Test(arguments: [40, 80, 120, 200])
    func lineFitsTheWidth(width: Int) {
        let line = StatusView.line(snapshot, width: width)
        #expect(line.count <= width)
        #expect(line.hasPrefix(">  1:23 / 4:00"))
    }

    @Test func wideLineShowsEverything() {
        let line = StatusView.line(snapshot, width: 200)
        for part in [
            "vol 80%", "x1.25", "A=0:10 B=0:20", "-12.3", "-inf", "some rather long file name.wav (2/12)", "[=",
        ] {
            #expect(line.contains(part), "\(part) missing in \(line)")
        }
    }

    @Test func jsonHasEveryField() {
        let json = StatusView.json(snapshot)
        #expect(json.contains("\"position\": 83.4") && json.contains("\"rate\": 1.25") && json.contains("\"index\": 2"))
        #expect(json.contains("{\"peak\": -60, \"rms\": -200}"))
    }

    @Test func levelMessagesGiveOneReadingPerChannel() {
        let level = Structure(
            name: "level",
            fields: [
                ("endtime", .uint(1)), ("rms", .list([.double(-20.5), .double(-21)])),
                ("peak", .list([.double(-3.25), .double(-4)])), ("decay", .list([.double(-3), .double(-4)])),
            ])
        #expect(ChannelLevel.parse(level) == [ChannelLevel(peak: -3.25, rms: -20.5), ChannelLevel(peak: -4, rms: -21)])
        #expect(ChannelLevel.parse(Structure(name: "level", fields: [("rms", .list([.double(-1)]))])) == nil)
        #expect(ChannelLevel.parse(Structure(name: "other", fields: level.fields)) == nil)
    }
}
