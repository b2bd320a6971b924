// yt-gst — `--no-mpris`: no MPRIS service on the session bus.

extension OptionSpec {
    /// `--no-mpris`: the desktop (media keys, its media widget, playerctl) does not see or steer the session.
    static let noMPRIS = OptionSpec(
        name: "no-mpris", help: "Do not publish MPRIS on the D-Bus session bus (media keys, playerctl).")
}
