// yt-gst — a service on the D-Bus session bus through GDBus: a well-known name, objects, signals.
internal import CGStreamer
import Glibc

/// What an object on the bus answers, for each interface it was registered with.
///
/// - Note: Called on the loop's thread, from `MainLoop.wait` (GDBus dispatches to the main context that was the
///   thread-default one when the object was registered: the default context, which `MainLoop.wait` runs).
public protocol DBusObject: AnyObject {
    /// Runs a method that has no out arguments.
    func call(_ method: String, on interface: String, _ arguments: [DBusValue?]) throws(DBusError)
    /// A property's value now.
    func property(_ name: String, on interface: String) throws(DBusError) -> DBusValue
    /// Sets a writable property.
    func setProperty(_ name: String, on interface: String, to value: DBusValue?) throws(DBusError)
}

/// The process's connection to the session bus, the names it owns there and the objects it registered.
///
/// GDBus reads and writes the socket on its own worker thread; only the calls to registered objects reach the loop's
/// thread (as a ready GLib source, so an idle service costs the loop nothing). The corresponding C functions are
/// `g_bus_get_sync`, `g_dbus_connection_register_object` and `g_dbus_connection_emit_signal`.
/// - Note: Not Sendable: register and close on the loop's thread. `emit` is safe from any thread.
public final class SessionBus {
    private let connection: OpaquePointer
    private var registrations: [guint] = []
    private var names: [String] = []

    /// The session bus when there is one: `DBUS_SESSION_BUS_ADDRESS` set and its bus answering; nil otherwise (a
    /// server, SSH), without starting one.
    public static func connect() -> SessionBus? {
        guard let address = getenv("DBUS_SESSION_BUS_ADDRESS"), address.pointee != 0 else { return nil }
        var error: UnsafeMutablePointer<GError>?
        guard let connection = g_bus_get_sync(G_BUS_TYPE_SESSION, nil, &error) else {
            g_clear_error(&error)
            return nil
        }
        // The bus going away must not end the player (GDBus's default for the shared connection is to raise SIGTERM).
        g_dbus_connection_set_exit_on_close(connection, 0)
        return SessionBus(connection: connection)
    }

    private init(connection: OpaquePointer) { self.connection = connection }

    /// Owns the first of `candidates` no other connection owns (without queueing for it); returns it, or nil when
    /// every one is taken or the bus refused.
    ///
    /// Asked synchronously, so that the name is owned before anything plays: a client that looks for the player as
    /// soon as it started finds it. The corresponding D-Bus method is `org.freedesktop.DBus.RequestName`.
    public func own(firstOf candidates: [String]) -> String? {
        for name in candidates {
            let reply = callBus("RequestName", [.string(name), .uint32(4)])  // DBUS_NAME_FLAG_DO_NOT_QUEUE
            // 1: now the primary owner; 4: already was.
            if case .uint32(let code)? = reply, code == 1 || code == 4 {
                names.append(name)
                return name
            }
        }
        return nil
    }

    /// Registers `object` at `path` for every interface of `introspection` (a D-Bus introspection XML `<node>`);
    /// GDBus answers `org.freedesktop.DBus.Properties` and `Introspectable` from it, calling the object.
    /// - Throws: `.invalidArgs` when the XML does not parse or the path is taken.
    public func register(_ object: DBusObject, at path: String, introspection: String) throws(DBusError) {
        var error: UnsafeMutablePointer<GError>?
        guard let node = g_dbus_node_info_new_for_xml(introspection, &error) else {
            throw DBusError(.invalidArgs, Self.take(&error))
        }
        defer { g_dbus_node_info_unref(node) }
        var vtable = GDBusInterfaceVTable()
        vtable.method_call = { _, _, _, interface, method, parameters, invocation, context in
            Unmanaged<Registration>.fromOpaque(context!).takeUnretainedValue()
                .call(String(cString: method!), parameters: parameters!, invocation: invocation!)
        }
        vtable.get_property = { _, _, _, _, name, error, context in
            Unmanaged<Registration>.fromOpaque(context!).takeUnretainedValue().get(String(cString: name!), error)
        }
        vtable.set_property = { _, _, _, _, name, value, error, context in
            Unmanaged<Registration>.fromOpaque(context!).takeUnretainedValue()
                .set(String(cString: name!), value: value!, error)
        }
        var index = 0
        while let interface = node.pointee.interfaces?[index] {
            index += 1
            let box = Unmanaged.passRetained(Registration(object, String(cString: interface.pointee.name))).toOpaque()
            // GDBus copies the vtable; it releases the box when the object is unregistered.
            let id = g_dbus_connection_register_object(
                connection, path, interface, &vtable, box,
                { Unmanaged<Registration>.fromOpaque($0!).release() }, &error)
            guard id != 0 else { throw DBusError(.invalidArgs, Self.take(&error)) }
            registrations.append(id)
        }
    }

    /// Sends a signal from `path`; safe from any thread (GDBus queues it for its worker thread).
    public func emit(_ signal: String, on interface: String, from path: String, _ arguments: [DBusValue]) {
        _ = g_dbus_connection_emit_signal(
            connection, nil, path, interface, signal, DBusValue.tuple(arguments), nil)
    }

    /// Unregisters the objects, releases the names and sends what is still queued (the last signals), once.
    public func close() {
        for id in registrations { _ = g_dbus_connection_unregister_object(connection, id) }
        registrations = []
        for name in names { _ = callBus("ReleaseName", [.string(name)]) }
        names = []
        _ = g_dbus_connection_flush_sync(connection, nil, nil)
    }

    deinit {
        close()
        g_object_unref(UnsafeMutableRawPointer(connection))
    }

    /// Calls a method of the bus itself (`org.freedesktop.DBus`); its first reply value, nil on an error.
    private func callBus(_ method: String, _ arguments: [DBusValue]) -> DBusValue? {
        guard
            let reply = g_dbus_connection_call_sync(
                connection, "org.freedesktop.DBus", "/org/freedesktop/DBus",
                "org.freedesktop.DBus", method, DBusValue.tuple(arguments), nil, G_DBUS_CALL_FLAGS_NONE, 5_000, nil,
                nil)
        else { return nil }
        defer { g_variant_unref(reply) }
        return DBusValue.children(of: reply).first ?? nil
    }

    private static func take(_ error: inout UnsafeMutablePointer<GError>?) -> String {
        defer { g_clear_error(&error) }
        return error.map { String(cString: $0.pointee.message) } ?? "unknown error"
    }

    /// One interface of a registered object, as GDBus's callbacks reach it (kept by GDBus until unregistered).
    private final class Registration {
        weak var object: DBusObject?
        let interface: String

        init(_ object: DBusObject, _ interface: String) {
            self.object = object
            self.interface = interface
        }

        func call(_ method: String, parameters: OpaquePointer, invocation: OpaquePointer) {
            do throws(DBusError) {
                guard let object else { throw DBusError(.unknownMethod, "the object is gone") }
                try object.call(method, on: interface, DBusValue.children(of: parameters))
                g_dbus_method_invocation_return_value(invocation, nil)
            } catch {
                g_dbus_method_invocation_return_dbus_error(invocation, error.name, error.message)
            }
        }

        func get(_ name: String, _ error: UnsafeMutablePointer<UnsafeMutablePointer<GError>?>?) -> OpaquePointer? {
            do throws(DBusError) {
                guard let object else { throw DBusError(.unknownProperty, "the object is gone") }
                return try object.property(name, on: interface).variant()
            } catch let failure {
                g_set_error_literal(error, CGst_dbus_error_quark(), gint(failure.code.rawValue), failure.message)
                return nil
            }
        }

        func set(
            _ name: String, value: OpaquePointer, _ error: UnsafeMutablePointer<UnsafeMutablePointer<GError>?>?
        ) -> gboolean {
            do throws(DBusError) {
                guard let object else { throw DBusError(.unknownProperty, "the object is gone") }
                try object.setProperty(name, on: interface, to: DBusValue(variant: value))
                return 1
            } catch let failure {
                g_set_error_literal(error, CGst_dbus_error_quark(), gint(failure.code.rawValue), failure.message)
                return 0
            }
        }
    }
}
