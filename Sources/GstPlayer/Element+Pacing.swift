// yt-gst — where a sink without a clock of its own plays: each buffer's samples moved before it renders.
internal import CGStreamer
import Glibc

/// How a paced sink's buffer is changed before it renders.
public enum PacedEdit: Sendable, Equatable {
    /// As it is.
    case keep
    /// Moved later by this many frames of silence before it (a start placed).
    case silenceBefore(Int)
    /// Moved later by this many copies of its first frame (a correction within the sound).
    case repeatFirst(Int)
    /// Moved earlier by dropping this many of its first frames (all of them: nothing renders).
    case dropFirst(Int)
}

/// What a pacing can do with a paced sink's device while it edits a buffer (on the streaming thread, during `edit`).
public protocol PacedSink: AnyObject {
    /// Waits until one of the device's buffers is free, at most `timeout` (ns), and holds it for what is handed on
    /// next. When it came free (ns, the kernel's CLOCK_MONOTONIC), where that was seen to the millisecond: it was
    /// not free before; nil otherwise (free at once, none came, or the sink lends none).
    func holdFreeBuffer(within timeout: Int64) -> Int64?
    /// Hands the sink `frames` of silence at once, in a buffer of their own, ahead of the buffer being edited.
    func handSilence(frames: Int)
}

/// Decides, buffer by buffer, where the samples a sink renders play: for a sink that hands each buffer on as it
/// comes (`sync` off) to a device whose timing the pacing knows, as an audio base sink's aligner moves its ring
/// buffer.
public protocol OutputPacing: AnyObject, Sendable {
    /// The edit of the next buffer: `due` is when its first frame is due on the pipeline clock (ns; the
    /// pipeline's latency not included), `frames` its length at `rate`. Runs on the streaming thread, before the
    /// sink renders; it may wait there (at most a few ms, as a sink waits for the clock), and use `sink`.
    func edit(due: Int64, frames: Int, rate: Int, sink: any PacedSink) -> PacedEdit
    /// The stream was flushed: what comes next is placed afresh.
    func flushed()
    /// The sink was handed its first buffer, an empty one (see `Element.pace`), just now: a device that queues it
    /// takes a turn to play it (nothing).
    func primed()
}

extension Element {
    /// Has `pacing` edit the audio that reaches this sink's sink pad, from now on, in buffers of at least `chunk`
    /// (the smaller ones that come are held and handed on together): a sink that hands each buffer to a device
    /// with few buffers of its own (pipewiresink's stream takes two) holds that much more ahead of the device.
    /// Those buffers are the pacing's alone: the sink's pool is taken out of what it answers upstream, where a
    /// converter that allocated from it (audioresample, resampling) waited for a buffer the pacing held, for good.
    ///
    /// - Returns: false when the element has no sink pad.
    /// The corresponding C function is `gst_pad_add_probe`.
    @discardableResult
    public func pace(_ pacing: any OutputPacing, chunk: ClockTime) -> Bool {
        let type = GstPadProbeType(
            GST_PAD_PROBE_TYPE_BUFFER.rawValue | GST_PAD_PROBE_TYPE_EVENT_FLUSH.rawValue
                | GST_PAD_PROBE_TYPE_EVENT_DOWNSTREAM.rawValue | GST_PAD_PROBE_TYPE_QUERY_DOWNSTREAM.rawValue)
        return addProbe(onPad: "sink", type: type, context: PacedInput(pacing, chunk: chunk)) { pad, info, context in
            guard let pad, let info, let context else { return GST_PAD_PROBE_OK }
            let input = ProbeContext<PacedInput>.value(at: context)
            guard info.pointee.type.rawValue & GST_PAD_PROBE_TYPE_QUERY_DOWNSTREAM.rawValue == 0 else {
                if !input.askingForPool { CGst_probe_strip_allocation_pools(info) }
                return GST_PAD_PROBE_OK
            }
            guard info.pointee.type.rawValue & GST_PAD_PROBE_TYPE_BUFFER.rawValue != 0 else {
                switch gst_pad_probe_info_get_event(info)?.pointee.type {
                case GST_EVENT_FLUSH_STOP: input.flushed()
                case GST_EVENT_EOS: input.drain(into: pad)
                default: break
                }
                return GST_PAD_PROBE_OK
            }
            guard let buffer = gst_pad_probe_info_get_buffer(info), var audio = input.format(at: pad) else {
                return GST_PAD_PROBE_OK
            }
            let due = Int64(CGst_pad_buffer_clock_time(pad, buffer))
            guard due >= 0 else { return GST_PAD_PROBE_OK }
            let chunkDue: Int64
            let frames: Int
            switch input.collect(buffer, due: due, audio: audio, into: info, at: pad) {
            case .held: return GST_PAD_PROBE_DROP
            case .passed: return GST_PAD_PROBE_OK
            case .chunk(let due, let count): (chunkDue, frames) = (due, count)
            }
            input.editing(at: pad, audio: audio)
            switch input.pacing.edit(due: chunkDue, frames: frames, rate: Int(audio.rate), sink: input) {
            case .keep:
                break
            case .silenceBefore(let count):
                _ = CGst_probe_shift_audio(info, &audio, -gint64(count), 0)
            case .repeatFirst(let count):
                _ = CGst_probe_shift_audio(info, &audio, -gint64(count), 1)
            case .dropFirst(let count):
                guard CGst_probe_shift_audio(info, &audio, gint64(count), 0) != 0 else { return GST_PAD_PROBE_DROP }
            }
            input.fillHeldBuffer(from: info)
            return GST_PAD_PROBE_OK
        }
    }
}

/// A paced sink's input: its pacing, and the audio held until a chunk's worth has come; the `PacedSink` its pacing
/// uses. Used by the pad's streaming thread only (and released with the probe).
private final class PacedInput: PacedSink, @unchecked Sendable {
    let pacing: any OutputPacing
    private let chunk: ClockTime
    private let adapter = gst_adapter_new()!
    /// When the first frame held is due.
    private var heldDue: Int64 = 0
    /// While a buffer of its own goes to the sink (`prime`, `handSilence`, `drain`): what it is.
    private var own: Collected? = nil
    private var primed = false
    /// The sink's buffer pool, where it lends its device's buffers (pipewiresink: its PipeWire stream's, and one
    /// taken from it goes to the stream as it is), asked for at the first chunk (the prime's render has activated it
    /// by then); nil when it lends none. Why: a free buffer is waited for here, on the pacing's terms, instead of in
    /// the sink's render, where the wait ends only once PipeWire's thread loop passes on that the graph gave one
    /// back, and a chunk placed before it reached the stream later than its place.
    private var pool: UnsafeMutablePointer<GstBufferPool>?
    private var poolAsked = false
    /// While the sink is asked for its pool here (the one answer the probe leaves as it is).
    private(set) var askingForPool = false
    /// A buffer of the pool held for what goes to the sink next.
    private var heldBuffer: UnsafeMutablePointer<GstBuffer>?
    /// The pad and format of the chunk being edited.
    private var edited: (pad: UnsafeMutablePointer<GstPad>, audio: GstAudioInfo)?
    /// The pad's caps last seen (a reference) and their format (nil: not raw audio), parsed once for each.
    private var parsed: (caps: UnsafeMutablePointer<GstCaps>, audio: GstAudioInfo?)?
    /// How often a free buffer is looked for while waiting for one (µs).
    private static let freeBufferPoll: useconds_t = 200

    init(_ pacing: any OutputPacing, chunk: ClockTime) {
        self.pacing = pacing
        self.chunk = chunk
    }

    deinit {
        if let parsed { gst_caps_unref(parsed.caps) }
        if let heldBuffer { gst_buffer_unref(heldBuffer) }
        if let pool { gst_object_unref(UnsafeMutableRawPointer(pool)) }
        g_object_unref(UnsafeMutableRawPointer(adapter))
    }

    /// What becomes of a buffer that reaches the sink.
    enum Collected: Equatable {
        /// Kept for a chunk (the probe drops it).
        case held
        /// Passed on as it is.
        case passed
        /// In the probe's place now, a whole chunk: when its first frame is due, and its frames.
        case chunk(due: Int64, frames: Int)
    }

    /// Holds `buffer` (due at `due`) until a chunk's worth is held, then puts all of it in the probe's place.
    func collect(
        _ buffer: UnsafeMutablePointer<GstBuffer>, due: Int64, audio: GstAudioInfo,
        into info: UnsafeMutablePointer<GstPadProbeInfo>, at pad: UnsafeMutablePointer<GstPad>
    ) -> Collected {
        if let own {
            return own == .passed
                ? .passed : .chunk(due: due, frames: Int(gst_buffer_get_size(buffer)) / Int(audio.bpf))
        }
        if !primed { prime(pad) }
        if gst_adapter_available(adapter) == 0 { heldDue = due }
        gst_adapter_push(adapter, gst_buffer_ref(buffer))
        let held = Int(gst_adapter_available(adapter))
        let frames = held / Int(audio.bpf)
        guard UInt64(frames) * 1_000_000_000 >= chunk.nanoseconds * UInt64(audio.rate),
            let whole = gst_adapter_take_buffer(adapter, gsize(held))
        else { return .held }
        gst_buffer_copy_into(whole, buffer, GST_BUFFER_COPY_FLAGS, 0, gsize.max)
        CGst_probe_replace_buffer(info, whole)
        return .chunk(due: heldDue, frames: frames)
    }

    /// The raw audio format of `pad`'s current caps; nil when it has none.
    func format(at pad: UnsafeMutablePointer<GstPad>) -> GstAudioInfo? {
        guard let caps = gst_pad_get_current_caps(pad) else { return nil }
        if let parsed, parsed.caps == caps {
            gst_caps_unref(caps)
            return parsed.audio
        }
        if let parsed { gst_caps_unref(parsed.caps) }
        var audio = GstAudioInfo()
        let raw = gst_audio_info_from_caps(&audio, caps) != 0 && audio.bpf > 0 && audio.rate > 0
        parsed = (caps, raw ? audio : nil)
        return raw ? audio : nil
    }

    /// A chunk of `audio` at `pad` is about to be edited.
    func editing(at pad: UnsafeMutablePointer<GstPad>, audio: GstAudioInfo) {
        edited = (pad, audio)
        guard !poolAsked, let caps = gst_pad_get_current_caps(pad) else { return }
        poolAsked = true
        askingForPool = true
        pool = CGst_pad_proposed_pool(pad, caps)
        askingForPool = false
        gst_caps_unref(caps)
    }

    func holdFreeBuffer(within timeout: Int64) -> Int64? {
        guard heldBuffer == nil, let pool else { return nil }
        let deadline = KernelClock.nanoseconds(CLOCK_MONOTONIC) + timeout
        var missedAt: Int64? = nil
        while true {
            let now = KernelClock.nanoseconds(CLOCK_MONOTONIC)
            if let buffer = CGst_pool_try_acquire(pool) {
                heldBuffer = buffer
                guard let missedAt, now - missedAt <= 1_000_000 else { return nil }
                return now
            }
            guard now < deadline else { return nil }
            missedAt = now
            usleep(Self.freeBufferPoll)
        }
    }

    func handSilence(frames: Int) {
        guard frames > 0, var audio = edited?.audio, let pad = edited?.pad,
            let silence = CGst_audio_silence(&audio, gsize(frames))
        else { return }
        let buffer = heldBuffer(filledFrom: silence) ?? silence
        if buffer != silence { gst_buffer_unref(silence) }
        own = .passed
        _ = gst_pad_chain(pad, buffer)
        own = nil
    }

    /// Puts the probe's buffer into the pool's buffer held, if one is.
    func fillHeldBuffer(from info: UnsafeMutablePointer<GstPadProbeInfo>) {
        guard let buffer = gst_pad_probe_info_get_buffer(info), let filled = heldBuffer(filledFrom: buffer) else {
            return
        }
        CGst_probe_replace_buffer(info, filled)
    }

    /// The pool's buffer held, filled from `buffer`, and no longer held; nil when none is held or it does not fit.
    private func heldBuffer(filledFrom buffer: UnsafeMutablePointer<GstBuffer>) -> UnsafeMutablePointer<GstBuffer>? {
        guard let held = heldBuffer, CGst_buffer_fill_from(held, buffer) != 0 else { return nil }
        heldBuffer = nil
        return held
    }

    /// At the first buffer: an empty one to the sink, whose first render makes its device's buffers
    /// (pipewiresink waits there for PipeWire to negotiate its stream's buffers, some ms, longer on a busy machine:
    /// the first chunk reached the stream a cycle late, unseen, and the room stayed that late).
    private func prime(_ pad: UnsafeMutablePointer<GstPad>) {
        primed = true
        own = .passed
        _ = gst_pad_chain(pad, gst_buffer_new())
        own = nil
        pacing.primed()
    }
    func flushed() {
        gst_adapter_clear(adapter)
        pacing.flushed()
    }

    /// At the end of the stream (before the sink sees it): hands what is held to the sink, less than a chunk.
    func drain(into pad: UnsafeMutablePointer<GstPad>) {
        let available = gst_adapter_available(adapter)
        guard available > 0, let rest = gst_adapter_take_buffer(adapter, available) else { return }
        let buffer = heldBuffer(filledFrom: rest) ?? rest
        if buffer != rest { gst_buffer_unref(rest) }
        own = .chunk(due: 0, frames: 0)
        _ = gst_pad_chain(pad, buffer)
        own = nil
    }
}
