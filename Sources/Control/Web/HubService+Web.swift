// yt-gst — the hub's service is what the web side serves.

/// The page's first load is allowed when the service answers a read (`Server.GetRPCVersion`) with the token given.
extension HubService: ControlEndpoint {}
