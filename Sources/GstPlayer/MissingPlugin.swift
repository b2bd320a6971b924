// yt-gst — which Debian package holds an element that is not installed.

/// Words for an element that is not installed (`GstError.Kind.missingElement`), naming the Debian package that holds
/// it, so that a program on these libraries can tell its user what to install.
public enum MissingPlugin {
    /// Debian packages of the elements people use most with yt-gst.
    public static let packages: [(package: String, elements: [String])] = [
        ("gstreamer1.0-pulseaudio", ["pulsesink", "pulsesrc"]),
        ("gstreamer1.0-alsa", ["alsasink", "alsasrc"]),
        (
            "gstreamer1.0-plugins-base",
            [
                "audioconvert", "audioresample", "volume", "opusenc", "opusdec", "vorbisenc",
                "oggmux", "tcpserversink", "tcpclientsrc", "appsrc", "audiotestsrc",
            ]
        ),
        (
            "gstreamer1.0-plugins-good",
            [
                "wavenc", "wavparse", "level", "rtpL16pay", "rtpL16depay", "rtpL24pay",
                "rtpL24depay", "rtpopuspay", "rtpopusdepay", "rtpbin", "udpsink", "udpsrc",
                "rtpjitterbuffer", "shout2send", "lamemp3enc", "mpg123audiodec", "flacenc",
                "scaletempo", "jackaudiosink", "autoaudiosink",
            ]
        ),
        (
            "gstreamer1.0-plugins-bad",
            ["srtsink", "srtsrc", "srtpenc", "srtpdec", "gdppay", "gdpdepay", "openalsink", "mpegtsmux"]
        ),
    ]

    /// "no element "srtsink" (install the Debian package gstreamer1.0-plugins-bad)".
    public static func describe(_ error: GstError) -> String {
        let parts = error.message.split(separator: "\"", omittingEmptySubsequences: false)
        guard parts.count >= 2 else { return "missing GStreamer element: \(error.message)" }
        return describe(element: String(parts[1]))
    }

    /// "GStreamer element "mpegtsmux" is not installed (install the Debian package gstreamer1.0-plugins-bad)".
    public static func describe(element: String) -> String {
        guard let package = packages.first(where: { $0.elements.contains(element) })?.package else {
            return "GStreamer element \"\(element)\" is not installed (gst-inspect-1.0 \(element) tells more)"
        }
        return "GStreamer element \"\(element)\" is not installed (install the Debian package \(package))"
    }
}
