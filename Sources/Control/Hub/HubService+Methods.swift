// yt-gst — Snapcast's methods: what each reads or changes, its result and the notification others get.

extension HubService {
    /// What a caller needs for a method.
    enum Needs {
        case nothing
        /// The token, unless reads are open.
        case read
        case token
    }

    /// Every method the service takes, and what it needs.
    static let methods: [String: Needs] = [
        "Server.GetRPCVersion": .read, "Server.GetStatus": .read, "Server.DeleteClient": .token,
        "Server.Authenticate": .nothing, "Client.GetStatus": .read, "Client.SetVolume": .token,
        "Client.SetLatency": .token, "Client.SetName": .token, "Group.GetStatus": .read, "Group.SetMute": .token,
        "Group.SetName": .token, "Group.SetClients": .token, "Group.SetStream": .token, "Stream.Control": .token,
        "Stream.SetProperty": .token, "yt-gst.Room.Hello": .token, "yt-gst.Room.Report": .token,
    ]

    /// Runs `method` (one of `methods`) and gives its result.
    func run(_ method: String, _ params: Params, caller: inout Caller) throws(JSONRPCError) -> JSONValue {
        switch method {
        case "Server.GetRPCVersion": .object([("major", 2), ("minor", 0), ("patch", 0)])
        case "Server.GetStatus": serverJSON
        case "Server.DeleteClient": try deleteClient(params, from: caller)
        case "Server.Authenticate": try authenticate(params, caller: &caller)
        case "Client.GetStatus": .object([("client", try client(params).json)])
        case "Client.SetVolume": try setVolume(params, from: caller)
        case "Client.SetLatency": try setLatency(params, from: caller)
        case "Client.SetName": try setName(params, from: caller)
        case "Group.GetStatus": .object([("group", state.json(of: try group(params)))])
        case "Group.SetMute": try setGroupMute(params, from: caller)
        case "Group.SetName": try setGroupName(params, from: caller)
        case "Group.SetClients": try setGroupClients(params, from: caller)
        case "Group.SetStream": try setGroupStream(params, from: caller)
        case "Stream.Control": try controlStream(params)
        case "Stream.SetProperty": try setStreamProperty(params)
        case "yt-gst.Room.Hello": try hello(params, caller: caller)
        default: try report(params, caller: caller)
        }
    }

    /// The client `params.id` names.
    func client(_ params: Params) throws(JSONRPCError) -> HubClient {
        guard let client = state.clients[try params.string("id")] else { throw .invalidParams("Client not found") }
        return client
    }

    /// The group `params.id` names.
    func group(_ params: Params) throws(JSONRPCError) -> HubGroup {
        guard let group = state.group(id: try params.string("id")) else { throw .invalidParams("Group not found") }
        return group
    }

    private func authenticate(_ params: Params, caller: inout Caller) throws(JSONRPCError) -> JSONValue {
        // {"token": T}, or Snapcast's own shape {"scheme": "Bearer", "param": T}.
        let token = params.value["token"]?.string ?? params.value["param"]?.string
        guard let token, tokenMatches(token) else { throw .unauthorized }
        caller.authenticated = true
        return "ok"
    }

    private func deleteClient(_ params: Params, from caller: Caller) throws(JSONRPCError) -> JSONValue {
        let id = try client(params).id
        change { $0.delete(clientID: id) }
        closeRoom(id)
        notify("Server.OnUpdate", serverJSON, except: caller.id)
        return serverJSON
    }

    /// Client.SetVolume: `volume.percent` and `volume.muted`, either may be left out (it keeps its value).
    private func setVolume(_ params: Params, from caller: Caller) throws(JSONRPCError) -> JSONValue {
        let id = try client(params).id
        let volume = try params.object("volume")
        var config = state.clients[id]!.config
        if volume["percent"] != nil { config.volumePercent = try params.integer("percent", in: 0...100, of: volume) }
        if volume["muted"] != nil {
            guard let muted = volume["muted"]?.bool else { throw .invalidParams("muted must be true or false") }
            config.muted = muted
        }
        setConfig(config, of: id)
        let result = JSONValue.object([("volume", config.volumeJSON)])
        notify("Client.OnVolumeChanged", .object([("id", .string(id))] + result.members), except: caller.id)
        return result
    }

    private func setLatency(_ params: Params, from caller: Caller) throws(JSONRPCError) -> JSONValue {
        let id = try client(params).id
        var config = state.clients[id]!.config
        config.latency = try params.integer("latency", in: RoomConfig.latencyRange)
        setConfig(config, of: id)
        let result = JSONValue.object([("latency", .number(Double(config.latency)))])
        notify("Client.OnLatencyChanged", .object([("id", .string(id))] + result.members), except: caller.id)
        return result
    }

    private func setName(_ params: Params, from caller: Caller) throws(JSONRPCError) -> JSONValue {
        let id = try client(params).id
        var config = state.clients[id]!.config
        config.name = try params.string("name")
        setConfig(config, of: id)
        let result = JSONValue.object([("name", .string(config.name))])
        notify("Client.OnNameChanged", .object([("id", .string(id))] + result.members), except: caller.id)
        return result
    }

    /// Keeps a room's new config and tells the room.
    private func setConfig(_ config: RoomConfig, of id: String) {
        change { $0.clients[id]?.config = config }
        configureRoom(id)
    }

    private func setGroupMute(_ params: Params, from caller: Caller) throws(JSONRPCError) -> JSONValue {
        let group = try group(params)
        let mute = try params.bool("mute")
        change { $0.updateGroup(group.id) { $0.muted = mute } }
        for id in group.clients { configureRoom(id) }
        let result = JSONValue.object([("mute", .bool(mute))])
        notify("Group.OnMute", .object([("id", .string(group.id))] + result.members), except: caller.id)
        return result
    }

    private func setGroupName(_ params: Params, from caller: Caller) throws(JSONRPCError) -> JSONValue {
        let group = try group(params)
        let name = try params.string("name")
        change { $0.updateGroup(group.id) { $0.name = name } }
        let result = JSONValue.object([("name", .string(name))])
        notify("Group.OnNameChanged", .object([("id", .string(group.id))] + result.members), except: caller.id)
        return result
    }

    /// Group.SetClients: the rooms listed make up the group; the whole server is the result (Server.OnUpdate).
    private func setGroupClients(_ params: Params, from caller: Caller) throws(JSONRPCError) -> JSONValue {
        let group = try group(params)
        let ids = try params.strings("clients")
        if let unknown = ids.first(where: { state.clients[$0] == nil }) {
            throw .invalidParams("Client not found: \(unknown)")
        }
        let before = Set(group.clients).union(ids)
        change { $0.setClients(ofGroup: group.id, to: ids, newGroupID: RandomID.uuid) }
        for id in before { configureRoom(id) }  // a room's group mute may have changed
        notify("Server.OnUpdate", serverJSON, except: caller.id)
        return serverJSON
    }

    /// Group.SetStream: the hub serves one stream, so only its id is taken.
    private func setGroupStream(_ params: Params, from caller: Caller) throws(JSONRPCError) -> JSONValue {
        let group = try group(params)
        guard try params.string("stream_id") == stream.id else { throw .invalidParams("Stream not found") }
        let result = JSONValue.object([("stream_id", .string(stream.id))])
        notify("Group.OnStreamChanged", .object([("id", .string(group.id))] + result.members), except: caller.id)
        return result
    }
}
