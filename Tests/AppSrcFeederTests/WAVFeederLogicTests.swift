// yt-gst — the feeder on its own, step by step against an in-memory appsrc: chunking, the queue limit, tags ahead
// of the data, seeks, the end of stream and a file cut short.
import AppSrcFeeder
import GstPlayer
import GstPlayerTesting
import TestSupport
import Testing
import WAV

@Suite struct WAVFeederLogicTests {
    /// A 1 s mono 8 kHz tone whose file carries a LIST/INFO title between fmt and data.
    static func titledTone() -> (bytes: [UInt8], samples: [UInt8]) {
        let tone = SyntheticWAV.tone(frames: 8_000, rate: 8_000, channels: 1)
        var list = Array("LIST".utf8)
        let body = VariantWAV.infoList([("INAM", "Morning")])
        VariantWAV.le32(&list, body.count)
        list += body
        var bytes = tone.bytes
        bytes.insert(contentsOf: list, at: 36)  // after RIFF/WAVE and the 16-byte fmt chunk
        let riffSize = bytes.count - 8
        for i in 0..<4 { bytes[4 + i] = UInt8(truncatingIfNeeded: riffSize >> (8 * i)) }
        return (bytes, tone.samples)
    }

    func attached(
        synchronizes: Bool = true, chunkMilliseconds: Int? = 100
    ) throws -> (
        WAVFeeder, EmbeddedAppSource, [UInt8]
    ) {
        let (bytes, samples) = Self.titledTone()
        let reader = MemoryReader(bytes)
        let feeder = try WAVFeeder(
            file: WAVFile(reader: reader), reader: reader, name: "tone.wav", chunkMilliseconds: chunkMilliseconds)
        let appsrc = EmbeddedAppSource(synchronizesToClock: synchronizes)
        try feeder.attach(to: appsrc)
        return (feeder, appsrc, samples)
    }

    @Test func tagsThenWholeChunksUpToTheQueueLimitThenTheEnd() throws {
        let (_, appsrc, samples) = try attached()
        // Caps first, then the title, then the data: 100 ms chunks of 1600 bytes, three queued at most.
        #expect(appsrc.maxBytes == 3 * 1_600)
        appsrc.needData()
        guard case .caps(let caps)? = appsrc.events.first else {
            Issue.record("no caps first: \(appsrc.events.prefix(2))")
            return
        }
        #expect(caps.rate == 8_000 && caps.channels == 1 && caps.format == .s16LE)
        #expect(appsrc.events.dropFirst().first == .tags([Message.Tag(name: "title", value: "Morning")]))
        #expect(appsrc.buffers.map(\.bytes.count) == [1_600, 1_600, 1_600], "the queue limit stops the pushing")
        appsrc.needData()
        #expect(appsrc.buffers.count == 3, "nothing more while the queue is full")
        #expect(appsrc.runToEnd())
        let everything = appsrc.bytes == samples
        #expect(everything)
        #expect(appsrc.buffers.map(\.timing.pts) == (0..<10).map { ClockTime(seconds: Double($0) / 10) })
        #expect(appsrc.buffers.map(\.timing.offset) == (0..<10).map { Int64($0 * 800) })
        #expect(appsrc.events.last == .endOfStream)
        #expect(appsrc.events.filter { $0 == .endOfStream }.count == 1)
    }

    @Test func withoutARealTimeSinkTheDefaultChunksAreOneSecond() throws {
        let (feeder, appsrc, samples) = try attached(synchronizes: false, chunkMilliseconds: nil)
        #expect(appsrc.runToEnd())
        #expect(appsrc.buffers.map(\.bytes.count) == [samples.count])
        #expect(feeder.chunkUnits == 1_600, "the plan stays at the 200 ms default; only what is fed grows")
    }

    @Test func aSeekMovesTheNextChunkAndForgetsTheEnd() throws {
        let (_, appsrc, samples) = try attached()
        #expect(appsrc.runToEnd())
        #expect(appsrc.seek(to: ClockTime(seconds: 0.55)))
        #expect(!appsrc.isEnded)
        let mark = appsrc.buffers.count
        #expect(appsrc.runToEnd())
        let after = appsrc.buffers[mark...]
        #expect(after.first?.timing.pts == ClockTime(seconds: 0.55))
        let tail = after.flatMap(\.bytes) == Array(samples[(4_400 * 2)...])
        #expect(tail, "after the seek: the file from 0.55 s to its end")
    }

    @Test func inVirtualTimeTheSinkTakesWhatIsDueTheQueueStaysFullAndTheEndReachesTheBus() throws {
        let (_, appsrc, samples) = try attached()
        let firstQuarter = appsrc.advance(by: .milliseconds(250))
        #expect(firstQuarter.map(\.timing.pts) == [0, 0.1, 0.2].map { ClockTime(seconds: $0) })
        #expect(appsrc.queuedBytes == 3 * 1_600, "the feeder topped the queue up as the sink took from it")
        #expect(appsrc.now == ClockTime(seconds: 0.25))
        #expect(appsrc.bus.events.isEmpty, "nothing to report a quarter of a second in")
        let rest = appsrc.advance(by: .milliseconds(750))
        let everything = (firstQuarter + rest).flatMap(\.bytes) == samples
        #expect(everything, "the sink took the whole file, in order")
        guard case .endOfStream? = appsrc.bus.nextEvent(timeout: .zero)?.view else {
            Issue.record("no end of stream on the bus once the sink took the last buffer")
            return
        }
        #expect(appsrc.bus.events.isEmpty, "one end of stream")
    }

    @Test func aReadErrorReachesTheBusAsTheAppsrcsErrorNamingTheFile() throws {
        let (bytes, _) = Self.titledTone()
        let file = try WAVFile(reader: MemoryReader(bytes))
        let feeder = try WAVFeeder(
            file: file, reader: FailingReader(bytes: bytes, from: file.dataOffset), name: "tone.wav",
            chunkMilliseconds: 100)
        let appsrc = EmbeddedAppSource()
        try feeder.attach(to: appsrc)
        appsrc.needData()
        guard case .error(let error)? = appsrc.bus.nextEvent(timeout: .zero)?.view else {
            Issue.record("no error on the bus: \(appsrc.bus.events)")
            return
        }
        #expect(error.message.contains("tone.wav") && error.message.contains("Input/output error"))
        #expect(error.domain == "gst-resource-error-quark" && error.resourceError == .read)
        #expect(error.elementName == "src")
        #expect(appsrc.buffers.isEmpty)
    }

    @Test func aFileCutShortEndsTheStreamWithWhatWasThere() throws {
        let (bytes, _) = Self.titledTone()
        let file = try WAVFile(reader: MemoryReader(bytes))
        // The header reads fine; the data does not (the reader holds only the header).
        let feeder = try WAVFeeder(
            file: file, reader: MemoryReader(Array(bytes.prefix(Int(file.dataOffset)))), name: "cut.wav",
            chunkMilliseconds: 100)
        let appsrc = EmbeddedAppSource()
        try feeder.attach(to: appsrc)
        appsrc.needData()
        #expect(appsrc.buffers.isEmpty)
        #expect(appsrc.isEnded, "a file that ends early ends the stream with what was there")
    }
}

/// The bytes of a file whose reads fail with EIO from `from` on (a disk that fails under the data chunk).
struct FailingReader: ByteReader {
    let bytes: [UInt8]
    let from: Int64

    var size: Int64 { Int64(bytes.count) }

    func read(at offset: Int64, into buffer: UnsafeMutableRawBufferPointer) throws(WAVError) -> Int {
        guard offset < from else { throw WAVError(.io, "Input/output error") }
        return try MemoryReader(bytes).read(at: offset, into: buffer)
    }
}
