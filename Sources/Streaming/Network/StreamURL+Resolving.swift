// yt-gst — where `stream` and `receive` turn a URL's host into an address and check the route, before any pipeline.

extension StreamURL {
    /// The URL with its host resolved to an address, and the route checked where this machine sends or calls.
    ///
    /// The host of an rtp:// URL to send to (`sending`, for `stream`) and of srt:// URLs is resolved; for RTP and
    /// for an SRT caller the route to it is checked too (an SRT listener only binds). RTP addresses to receive on
    /// (a multicast group) and SDP files are used as they are. udpsink would only warn about a name it cannot
    /// resolve, so this runs before any pipeline.
    ///
    /// - Throws: a problem whose text starts with this URL, for a one-line message.
    public func resolved(sending: Bool) throws(NetworkAddress.Problem) -> StreamURL {
        do {
            switch self {
            case .rtp(var endpoint) where sending:
                endpoint.host = try NetworkAddress.resolve(
                    endpoint.host ?? "", port: endpoint.port, checkingRoute: true)
                return .rtp(endpoint)
            case .srt(var endpoint):
                guard let host = endpoint.host else { return self }
                endpoint.host = try NetworkAddress.resolve(
                    host, port: endpoint.port, checkingRoute: endpoint.mode == .caller)
                return .srt(endpoint)
            case .rtp, .sdp:
                return self
            }
        } catch {
            throw NetworkAddress.Problem(description: "\(self): \(error)")
        }
    }
}
