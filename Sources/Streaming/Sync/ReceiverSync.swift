// yt-gst — what makes a receiver play in step with the sender and every other receiver.
import GstPlayer

/// A synchronised receiver's timing: the clock it shares with the sender, and when each sample plays.
///
/// Sample n plays when the shared clock reads (the sender's time of n) + `latency` + `delay`, on every receiver:
/// - the pipeline runs on the shared clock (`Pipeline.run(on:baseTime:)`) with its latency fixed to `latency`;
/// - every RTP packet gets the timestamp its RTP timestamp means on that clock (`MediaClock`), whatever the network
///   did to it on the way, so the first packet a late receiver hears is placed as exactly as the millionth;
/// - the audio sink follows the clock sample by sample (`OutputAligner`): the device's own rate and the audio
///   server's start-up offset are corrected one sample at a time instead of the sink's 40 ms tolerance.
final class ReceiverSync {
    /// The end-to-end latency when --latency-ms is not given: the jitter buffer's 30 ms, the output's 40 ms and room.
    static let defaultLatencyMilliseconds = 80
    /// What the audio sink buffers (its `buffer-time`, 40 ms) and how much it writes at once (`latency-time`,
    /// 10 ms), unless the user set them: the sink's own latency must fit within the shared one.
    static let outputBufferMicroseconds = 40_000
    static let outputPeriodMicroseconds = 10_000

    let clock: Clock
    let latency: ClockTime
    /// --delay-ms, in ns (negative: earlier).
    let delay: Int64
    /// The RTP clock rate of the stream.
    let rate: Int
    /// One per audio sink.
    private(set) var aligners: [OutputAligner] = []

    init(clock: Clock, latency: ClockTime, delay: Int64, rate: Int) {
        self.clock = clock
        self.latency = latency
        self.delay = delay
        self.rate = rate
    }

    /// The jitter buffer's latency: what the shared latency leaves after the output's buffer, at least 10 ms.
    var jitterBufferMilliseconds: Int {
        max(Int(latency.nanoseconds / 1_000_000) - ReceiverSync.outputBufferMicroseconds / 1000 - 10, 10)
    }

    /// Sets the pipeline's clock, base time and latency, and gives every packet that passes `retimeElement`'s sink
    /// pad its time on the shared clock. Call before the pipeline goes to READY.
    func prepare(_ pipeline: Pipeline, retimeElement: Element) {
        let baseTime = clock.time
        pipeline.run(on: clock, baseTime: baseTime)
        pipeline.setLatency(latency)
        let (clock, rate, delay) = (clock, rate, delay)
        retimeElement.retime(onPad: "sink") { head in
            guard let timestamp = MediaClock.rtpTimestamp(inPacket: head) else { return nil }
            let played = MediaClock.time(ofRTPTimestamp: timestamp, rate: rate, near: clock.time)
            let running = Int64(played.nanoseconds) - Int64(baseTime.nanoseconds) + delay
            return running >= 0 ? ClockTime(nanoseconds: UInt64(running)) : nil
        }
    }

    /// Hands every audio sink of the (READY) pipeline to an `OutputAligner`, with buffers small enough for the
    /// shared latency and realignment on a sample's difference.
    func alignOutputs(of pipeline: Pipeline) throws(GstError) {
        for sink in pipeline.allElements() where sink.isAudioBaseSink {
            if sink.hasDefaultValue("buffer-time") {
                try sink.set("buffer-time", fromString: String(ReceiverSync.outputBufferMicroseconds))
            }
            if sink.hasDefaultValue("latency-time") {
                try sink.set("latency-time", fromString: String(ReceiverSync.outputPeriodMicroseconds))
            }
            // A correction moves the output by one sample; the sink realigns only when its samples are at least
            // this far (1.5 samples) from where their timestamps say.
            try sink.set("alignment-threshold", fromString: String(1_500_000_000 / rate))
            try sink.set("discont-wait", fromString: "0")
            let aligner = OutputAligner()
            sink.follow(aligner)
            aligners.append(aligner)
        }
        // pulsesink's clock is what the aligners compare with the shared one: make it an unbiased one.
        if !aligners.isEmpty { PulseStreamClock.isEnabled.store(true, ordering: .relaxed) }
    }
}
