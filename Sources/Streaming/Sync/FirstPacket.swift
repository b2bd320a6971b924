// yt-gst — before a synchronised receiver starts: who sends, learned from the first packet.
import GstPlayer

/// The first RTP packet at a receiver's address: its sender (where the clock is published) and payload type.
struct FirstPacket {
    var sender: String
    var payloadType: Int

    /// Listens where the receiver will (`port`, joining `group` on `interface` if given) until a packet that
    /// `accepting` takes for the stream's arrives (anyone can send anything to the port).
    /// The RTCP port (`port` + 1) is bound too, as the receiver's will be: from now on both are taken.
    ///
    /// - Throws: the exit code, once the problem has been said: --timeout passed (`timeout`), a signal, or a
    ///   socket that cannot be opened.
    static func wait(
        port: Int, group: String?, interface: String?, timeout: Double?, describing source: StreamURL,
        accepting: (UnsafeRawBufferPointer) -> Bool
    ) throws(ExitCode) -> FirstPacket {
        let pipeline: Pipeline
        do {
            pipeline = try Pipeline(
                launch: "udpsrc name=rtp ! appsink name=first sync=false max-buffers=1 drop=true "
                    + "udpsrc name=rtcp ! fakesink sync=false async=false")
            for (name, port) in [("rtp", port), ("rtcp", port + 1)] {
                let udp = try pipeline.element(named: name)
                try udp.set("port", fromString: String(port))
                if let group {
                    try udp.set("address", fromString: group)
                    if let interface { try udp.set("multicast-iface", fromString: interface) }
                }
            }
            try pipeline.setState(.playing)
        } catch {
            Terminal.error("yt-gst: \(source): \(error.message)")
            throw .failure
        }
        defer { _ = try? pipeline.setState(.null) }
        let sink = try? pipeline.appSink(named: "first")
        let deadline = timeout.map { ContinuousClock.now + .milliseconds(Int64($0 * 1000)) }
        while true {
            if let signal = Interrupts.pending { throw Interrupts.exitCode(for: signal) }
            if let deadline, ContinuousClock.now >= deadline {
                let seconds = timeout!
                Terminal.error(
                    "yt-gst: no data from \(source) for \(seconds == seconds.rounded() ? "\(Int(seconds))" : "\(seconds)") s"
                )
                throw .failure
            }
            while let message = pipeline.nextMessage(timeout: .zero) {
                guard case .error(let error) = message else { continue }
                Terminal.error("yt-gst: \(source): \(error.message)")
                throw .failure
            }
            guard let sample = sink?.pull(timeout: .milliseconds(100)), sample.bytes.withUnsafeBytes(accepting),
                let sender = sample.sourceAddress
            else { continue }
            return FirstPacket(sender: sender, payloadType: Int(sample.bytes[1] & 0x7f))
        }
    }
}
