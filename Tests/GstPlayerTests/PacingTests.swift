// yt-gst — a paced sink's input: held in chunks, edited as its pacing says, and its rest handed on at the end.
import GstPlayer
import Synchronization
import Testing

@Suite struct PacingTests {
    /// Answers each chunk with the next edit of a script, and keeps what it was asked.
    final class ScriptedPacing: OutputPacing {
        let script: Mutex<[PacedEdit]>
        let asked = Mutex<[(due: Int64, frames: Int, rate: Int)]>([])
        init(_ script: [PacedEdit]) { self.script = Mutex(script) }
        /// Silence the sink is handed ahead of the next chunk (frames), and whether it waited for a free buffer.
        let silenceAhead = Mutex<[Int: Int]>([:])
        let heldBuffers = Mutex<[Int64?]>([])
        func edit(due: Int64, frames: Int, rate: Int, sink: any PacedSink) -> PacedEdit {
            let index = asked.withLock {
                $0.append((due, frames, rate))
                return $0.count - 1
            }
            heldBuffers.withLock { $0.append(sink.holdFreeBuffer(within: 1_000_000)) }
            if let silence = silenceAhead.withLock({ $0[index] }) { sink.handSilence(frames: silence) }
            return script.withLock { $0.isEmpty ? .keep : $0.removeFirst() }
        }
        func flushed() {}
        let primes = Mutex(0)
        func primed() { primes.withLock { $0 += 1 } }
    }

    /// Ten buffers of 100 frames (S16LE mono at 1 kHz, each frame its index) through a sink paced in chunks of at
    /// least 250 ms: three chunks of 300 frames, edited as scripted (the second with 4 frames of silence handed on
    /// ahead of it), then the last 100 frames at the end. An appsink lends no buffers: none is held.
    @Test func aPacedSinkGetsChunksEditedAsItsPacingSaysAndTheRestAtTheEnd() throws {
        let pipeline = try Pipeline(launch: "appsrc name=src format=time ! appsink name=sink sync=false")
        defer { _ = try? pipeline.setState(.null) }
        // A base time of its own from the start, as a receiver's (its first chunk is due before it plays).
        pipeline.run(on: .system(), baseTime: ClockTime(nanoseconds: 7_000_000_000))
        let pacing = ScriptedPacing([.silenceBefore(5), .repeatFirst(2), .dropFirst(3), .keep])
        pacing.silenceAhead.withLock { $0[1] = 4 }
        let sink = try pipeline.appSink(named: "sink")
        #expect(sink.pace(pacing, chunk: ClockTime(nanoseconds: 250_000_000)))
        let source = try pipeline.appSource(named: "src")
        try source.configure(
            caps: .rawAudio(format: .s16LE, rate: 1_000, channels: 1), streamType: .stream, maxBytes: 1 << 16,
            refillPercent: 50, duration: nil)
        for buffer in 0..<10 {
            let pushed = source.push(
                capacity: 200,
                fill: { bytes in
                    for frame in 0..<100 {
                        bytes.storeBytes(of: Int16(buffer * 100 + frame), toByteOffset: frame * 2, as: Int16.self)
                    }
                    return 200
                }, timing: { _ in BufferTiming(frames: Int64(buffer * 100)..<Int64(buffer * 100 + 100), rate: 1_000) })
            #expect(pushed == .ok)
        }
        source.endOfStream()
        try pipeline.setState(.playing)
        var heard: [Int16] = []
        while let sample = sink.pull(timeout: .seconds(5)) {
            heard += sample.bytes.withUnsafeBytes { Array($0.bindMemory(to: Int16.self)) }
        }
        let expected: [Int16] =
            Array(repeating: 0, count: 5) + (0..<300).map(Int16.init) + Array(repeating: 0, count: 4) + [300, 300]
            + (300..<600).map(Int16.init)
            + (603..<1000).map(Int16.init)
        #expect(heard == expected)
        let asked = pacing.asked.withLock { $0 }
        #expect(pacing.primes.withLock { $0 } == 1)
        #expect(asked.map(\.frames) == [300, 300, 300, 100])
        #expect(asked.map(\.rate) == [1_000, 1_000, 1_000, 1_000])
        #expect(pacing.heldBuffers.withLock { $0 } == [nil, nil, nil, nil])
        // Each chunk is due when its first frame is (the base time + its running time).
        #expect(asked.map(\.due) == [7_000_000_000, 7_300_000_000, 7_600_000_000, 7_900_000_000])
    }
}
