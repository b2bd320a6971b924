// yt-gst — small PlayableSources for GstPlayer's own tests (GstPlayer knows nothing of WAV).
import GstPlayer
import Synchronization

/// Pushes `buffers` buffers of 16-bit mono silence (100 frames each at 8 kHz), then ends the stream.
final class SilenceSource: Feeder, Sendable {
    let displayName = "silence"
    let buffers: Int
    let framesPerBuffer: Int64 = 800
    let rate = 8_000
    private let state = Mutex((next: Int64(0), needDataCalls: 0, seeks: [ClockTime](), ended: false))

    init(buffers: Int) { self.buffers = buffers }

    var needDataCalls: Int { state.withLock { $0.needDataCalls } }
    var seeks: [ClockTime] { state.withLock { $0.seeks } }

    func attach(to source: any AppSourceProtocol) throws(GstError) {
        try source.configure(
            caps: .rawAudio(format: .s16LE, rate: 8000, channels: 1), streamType: .seekable,
            maxBytes: 3 * 1600, duration: ClockTime(frames: Int64(buffers) * framesPerBuffer, rate: rate))
        source.setCallbacks(callbacks)
    }

    var callbacks: AppSourceCallbacks {
        AppSourceCallbacks(
            needData: { [self] source, _ in needData(source) }, seekData: { [self] _, time in seek(to: time) })
    }

    func needData(_ source: any AppSourceProtocol) {
        let total = Int64(buffers) * framesPerBuffer
        let next: Int64? = state.withLock { state in
            state.needDataCalls += 1
            guard state.next < total else {
                if state.ended { return nil }
                state.ended = true
                return -1
            }
            defer { state.next += framesPerBuffer }
            return state.next
        }
        guard let next else { return }
        if next < 0 {
            source.endOfStream()
            return
        }
        _ = source.push(capacity: 1600) { buffer in
            buffer.initializeMemory(as: UInt8.self, repeating: 0)
            return buffer.count
        } timing: { written in
            BufferTiming(frames: next..<(next + Int64(written / 2)), rate: rate)
        }
    }

    func seek(to time: ClockTime) -> Bool {
        state.withLock {
            $0.seeks.append(time)
            $0.next = min(time.frames(rate: rate), Int64(buffers) * framesPerBuffer)
            $0.ended = false
        }
        return true
    }
}

/// Records that it was released, to prove appsrc's destroy notify let the callbacks go.
final class ReleaseProbe: Sendable {
    let released = Atomic<Bool>(false)
}

final class ProbedSilenceSource: Feeder, Sendable {
    let displayName = "probed"
    let probe: ReleaseProbe
    let inner: SilenceSource

    init(probe: ReleaseProbe, buffers: Int) {
        self.probe = probe
        self.inner = SilenceSource(buffers: buffers)
    }

    deinit { probe.released.store(true, ordering: .relaxed) }

    func attach(to source: any AppSourceProtocol) throws(GstError) {
        try inner.attach(to: source)
        source.setCallbacks(
            AppSourceCallbacks(
                needData: { [self] source, _ in inner.needData(source) },
                seekData: { [self] _, time in inner.seek(to: time) }))
    }
}
