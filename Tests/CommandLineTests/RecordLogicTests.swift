// yt-gst — record's pure logic: options, split names, keys, voice activation and the level meter.
import AppSrcFeeder
import Glibc
import Recording
import Testing
import WAV

@testable import yt_gst

@Suite struct RecordLogicTests {
    static func command(_ arguments: [String]) throws(UsageError) -> RecordCommand {
        try RecordCommand(RecordCommand.spec.parse(arguments))
    }

    @Test(arguments: [
        (["a.wav", "b.wav"], "give one output file"),
        ([], "no output file given"),
        (["a.wav", "--format", "s8"], "--format must be"),
        (["a.wav", "--split", "vox"], "--split vox needs --vox"),
        (["a.wav", "--hang", "1"], "go with --vox"),
        (["-", "--split", "10"], "--split needs file names"),
        (["a.wav", "--source", "tone", "--pipeline", "x ! appsink name=sink"], "not both"),
        (["a.wav", "--duration", "0"], "--duration must be more than 0"),
        (["a.wav", "--split", "0.01"], "--split must be a time"),
        (["a.wav", "--channels", "64"], "--channels must be"),
    ])
    func badOptionsAreUsageErrors(arguments: [String], message: String) {
        let error = #expect(throws: UsageError.self) { try Self.command(arguments) }
        #expect(error?.message.contains(message) == true, "\(error?.message ?? "")")
    }

    @Test func theAppsinkGetsTheAskedFormat() throws {
        let command = try Self.command(["a.wav", "--rate", "8000", "--channels", "1", "--format", "alaw"])
        #expect(command.sinkCaps == "audio/x-raw, format=S16LE, layout=interleaved, rate=8000, channels=1")
        #expect(command.launch(source: "autoaudiosrc").contains("! alawenc ! appsink name=sink"))
        #expect(
            try Self.command(["a.wav", "--format", "s24"]).sinkCaps == "audio/x-raw, format=S24LE, layout=interleaved")
    }

    @Test func splitNamesCountAndFormatTimes() {
        var parts = tm()
        parts.tm_year = 126
        parts.tm_mon = 10
        parts.tm_mday = 30
        parts.tm_hour = 14
        parts.tm_min = 5
        parts.tm_sec = 9
        parts.tm_isdst = -1
        let time = mktime(&parts)
        #expect(SplitName.name("take-%03d.wav", number: 7, time: time) == "take-007.wav")
        #expect(SplitName.name("memo-%Y%m%d-%H%M%S.wav", number: 1, time: time) == "memo-20261130-140509.wav")
        #expect(SplitName.name("%Y/take-%2d-100%%.wav", number: 3, time: time) == "2026/take-3-100%.wav")
        #expect(SplitName.pattern(for: "dir.v2/take.wav") == "dir.v2/take-%03d.wav")
        #expect(SplitName.pattern(for: "take") == "take-%03d")
        #expect(SplitName.pattern(for: "t-%H.wav") == "t-%H.wav")
    }

    @Test func keys() {
        #expect(RecordKeys.action(for: .char(" ")) == .togglePause)
        #expect(RecordKeys.action(for: .char("m")) == .marker)
        #expect(RecordKeys.action(for: .escape) == .quit && RecordKeys.action(for: .char("q")) == .quit)
        #expect(RecordKeys.action(for: .left) == nil)
    }

    /// Frames in, frames out: the pre-roll comes with the first loud buffer, the hang time after the last.
    @Test func voiceGateKeepsPreRollAndHang() {
        var gate = VoiceGate(threshold: 0.1, preRollFrames: 3, hangFrames: 4, blockAlign: 1)
        func run(_ bytes: [UInt8], _ peak: Float) -> VoiceGate.Decision { gate.process(bytes, peak: peak) }
        #expect(run([1, 2], 0).bytes.isEmpty)
        #expect(run([3, 4], 0).bytes.isEmpty)
        let opened = run([5, 6], 0.5)
        #expect(opened.opened && opened.bytes == [2, 3, 4, 5, 6], "3 frames of pre-roll, then the buffer")
        #expect(run([7, 8], 0).bytes == [7, 8])
        let closed = run([9, 10], 0)
        #expect(closed.closed && closed.bytes == [9, 10], "4 quiet frames reach the hang time")
        #expect(run([11], 0).bytes.isEmpty && !gate.isOpen)
    }

    @Test func levelsOfEveryFormat() {
        // Full-scale positive and half-scale negative samples, one channel each of a stereo frame.
        let cases: [(SampleFormat, [UInt8])] = [
            (.s16, [0xFF, 0x7F, 0x00, 0xC0]), (.s24, [0xFF, 0xFF, 0x7F, 0x00, 0x00, 0xC0]),
            (.s32, [0xFF, 0xFF, 0xFF, 0x7F, 0x00, 0x00, 0x00, 0xC0]), (.f32, [0, 0, 0x80, 0x3F, 0, 0, 0, 0xBF]),
            (.u8, [0xFF, 0x40]), (.alaw, [0xAA, 0x3A]), (.mulaw, [0x80, 0x10]),
        ]
        for (format, frame) in cases {
            var levels = SampleLevels(format: format, channels: 2)
            levels.measure(frame)
            let readings = levels.readings
            #expect(abs(readings[0].peak) < 0.2, "\(format): \(readings[0].peak)")
            #expect(abs(readings[1].peak - -6.02) < 0.3, "\(format): \(readings[1].peak)")
        }
    }
}
