// yt-gst — which server a libpulse stream plays to: PulseAudio itself, or PipeWire's pulse server.
import Synchronization

extension PulseStreamClock {
    /// Per libpulse context (its address): whether its server is PulseAudio itself; absent while not asked.
    static let plainPulseAudio = Mutex([UInt: Bool]())

    /// Whether `stream`'s context plays to PulseAudio itself (see `Start`); false while not known yet: the server is
    /// asked then (pulsesink connects a probe stream on the same context first, 1-40 ms before its own).
    static func isPlainPulseAudio(_ stream: OpaquePointer?) -> Bool {
        guard let library = Library.shared, let context = library.streamContext(stream).map(OpaquePointer.init)
        else { return false }
        let key = address(of: context)
        let known = plainPulseAudio.withLock { all -> Bool? in
            if let known = all[key] { return known }
            all[key] = false  // asked: not known until the server says
            return nil
        }
        if let known { return known }
        if let operation = library.serverInfo(context, serverInfoArrived, nil) {
            library.operationUnref(operation)
        } else {
            _ = plainPulseAudio.withLock { $0.removeValue(forKey: key) }  // not asked: ask again next time
        }
        return false
    }

    /// The answer to `pa_context_get_server_info`: its `server_name` (the fourth field of `pa_server_info`) is
    /// "pulseaudio" for PulseAudio, "PulseAudio (on PipeWire …)" for pipewire-pulse.
    static let serverInfoArrived: Library.ServerInfoCallback = { context, info, _ in
        guard let context else { return }
        let name = info?.load(fromByteOffset: 3 * MemoryLayout<UnsafeRawPointer>.size, as: UnsafePointer<CChar>?.self)
        plainPulseAudio.withLock { all in
            // No answer: asked again at the next connection.
            all[address(of: context)] = name.map { String(cString: $0) == "pulseaudio" }
        }
    }
}
