// yt-gst — which server a libpulse stream plays to: PulseAudio itself, or PipeWire's pulse server.
import Synchronization

extension PulseStreamClock {
    /// Per libpulse context (its address): whether its server is PulseAudio itself; absent while not known yet.
    static let plainPulseAudio = Mutex([UInt: Bool]())

    /// Whether `stream` is to play from its connection (see `connectPlayback`): only where its context's server is
    /// known to be PulseAudio itself. Not known yet, the server is asked (pulsesink connects a probe stream on the
    /// same context first, 1-40 ms before its own), and the stream starts corked as pulsesink asked.
    static func runsFromConnection(_ stream: OpaquePointer?) -> Bool {
        guard let library = Library.shared, let context = library.streamContext(stream).map(OpaquePointer.init)
        else { return false }
        let key = address(of: context)
        let known = plainPulseAudio.withLock { all -> Bool? in
            if let known = all[key] { return known }
            all[key] = false  // until the server says
            return nil
        }
        if let known { return known }
        if let operation = library.serverInfo(context, serverInfoArrived, nil) { library.operationUnref(operation) }
        return false
    }

    /// The answer to `pa_context_get_server_info`: its `server_name` (the fourth field of `pa_server_info`) is
    /// "pulseaudio" for PulseAudio, "PulseAudio (on PipeWire …)" for pipewire-pulse.
    static let serverInfoArrived: Library.ServerInfoCallback = { context, info, _ in
        guard let context, let info,
            let name = info.load(
                fromByteOffset: 3 * MemoryLayout<UnsafeRawPointer>.size, as: UnsafePointer<CChar>?.self)
        else { return }
        let isPulseAudio = String(cString: name) == "pulseaudio"
        plainPulseAudio.withLock { $0[address(of: context)] = isPulseAudio }
    }
}
