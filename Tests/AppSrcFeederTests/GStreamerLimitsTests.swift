// yt-gst — valid WAVs beyond what GStreamer carries (64 channels or more, rates above a gint) are refused before any
// pipeline sees them; everything below the limits plays through audioconvert, which crashed on 64 channels.
import AppSrcFeeder
import GstPlayer
import TestSupport
import Testing
import WAV

@Suite(.serialized) struct GStreamerLimitsTests {
    init() { Gst.initialize() }

    /// The pipeline `play --sink fakesink` builds.
    static let launch = "appsrc name=src ! audioconvert ! audioresample ! fakesink"

    /// A few frames of silence with `channels` channels, in one of the raw layouts (cycled by channel count).
    static func silence(channels: Int, rate: Int = 8_000) -> SyntheticWAV {
        let layouts: [(bits: Int, tag: UInt16)] = [(8, 1), (16, 1), (24, 1), (32, 1), (32, 3), (64, 3)]
        let layout = layouts[channels % layouts.count]
        return SyntheticWAV(
            sampleRate: rate, channels: channels, bitsPerSample: layout.bits, formatTag: layout.tag,
            samples: [UInt8](repeating: 0, count: 4 * channels * layout.bits / 8))
    }

    /// Every channel count from 1 to 1024 (each fits a WAV header: block align up to 8192): up to 63 plays to the
    /// end through audioconvert, from 64 on the feeder refuses the file with one line that names the limit.
    @Test func everyChannelCountPlaysOrIsRefusedNamingTheLimit() throws {
        for channels in 1...1024 {
            let bytes = Self.silence(channels: channels).bytes
            let file = try WAVFile(reader: MemoryReader(bytes))
            #expect(file.format.channels == channels && file.frameCount == 4)
            let feeder: WAVFeeder
            do {
                feeder = try WAVFeeder(file: file, reader: MemoryReader(bytes), name: "\(channels).wav")
            } catch {
                #expect(channels > WAVFeeder.maxChannels, "\(channels) channels: \(error)")
                #expect(error.kind == .unsupportedFormat)
                #expect(error.message == "\(channels) channels; GStreamer's audio conversion takes at most 63")
                continue
            }
            #expect(channels <= 63)
            #expect(throws: Never.self, "\(channels) channels") { try Harness.play(feeder, launch: Self.launch) }
        }
    }

    /// Caps carry the rate as a gint: up to 2147483647 Hz plays, above it is named before the pipeline starts
    /// (it was "Internal data stream error").
    @Test(arguments: [2_147_483_647, 2_147_483_648, 4_294_967_295])
    func sampleRatesUpToAGintPlay(rate: Int) throws {
        let bytes = Self.silence(channels: 2, rate: rate).bytes
        let file = try WAVFile(reader: MemoryReader(bytes))
        #expect(file.format.sampleRate == rate)
        if rate <= Int(Int32.max) {
            let feeder = try WAVFeeder(file: file, reader: MemoryReader(bytes), name: "rate.wav")
            try Harness.play(feeder, launch: Self.launch)
        } else {
            let error = #expect(throws: WAVError.self) {
                try WAVFeeder(file: file, reader: MemoryReader(bytes), name: "rate.wav")
            }
            #expect(error?.kind == .unsupportedFormat)
            #expect(error?.message == "sample rate \(rate) Hz; GStreamer takes at most 2147483647 Hz")
        }
    }
}
