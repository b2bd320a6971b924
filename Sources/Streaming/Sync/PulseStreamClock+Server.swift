// yt-gst — which server a libpulse stream plays to: PulseAudio itself, or PipeWire's pulse server.
import Synchronization

extension PulseStreamClock {
    /// A libpulse context's server, as far as known.
    enum Server: Equatable, Sendable {
        /// Asked, not known yet.
        case asked
        case pulseAudio
        /// pipewire-pulse (any server that does not call itself "pulseaudio").
        case pipeWire
    }

    /// Per libpulse context (its address): its server; absent while not asked.
    static let servers = Mutex([UInt: Server]())

    /// The server of `stream`'s context (see `Start`); `.asked` while not known yet: the server is asked then
    /// (pulsesink connects a probe stream on the same context first, 1-40 ms before its own); nil without a context.
    static func server(of stream: OpaquePointer?) -> Server? {
        guard let library = Library.shared, let context = library.streamContext(stream).map(OpaquePointer.init)
        else { return nil }
        let key = address(of: context)
        let known = servers.withLock { all -> Server? in
            if let known = all[key] { return known }
            all[key] = .asked
            return nil
        }
        if let known { return known }
        if let operation = library.serverInfo(context, serverInfoArrived, nil) {
            library.operationUnref(operation)
        } else {
            _ = servers.withLock { $0.removeValue(forKey: key) }  // not asked: ask again next time
        }
        return .asked
    }

    /// The answer to `pa_context_get_server_info`: its `server_name` (the fourth field of `pa_server_info`) is
    /// "pulseaudio" for PulseAudio, "PulseAudio (on PipeWire …)" for pipewire-pulse.
    static let serverInfoArrived: Library.ServerInfoCallback = { context, info, _ in
        guard let context else { return }
        let name = info?.load(fromByteOffset: 3 * MemoryLayout<UnsafeRawPointer>.size, as: UnsafePointer<CChar>?.self)
        servers.withLock { all in
            // No answer: asked again at the next connection.
            all[address(of: context)] = name.map { String(cString: $0) == "pulseaudio" ? .pulseAudio : .pipeWire }
        }
    }
}
