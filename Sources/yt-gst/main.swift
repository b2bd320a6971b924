// yt-gst — entry point: picks the command, maps every outcome to an exit code.
import Glibc

let arguments = Array(CommandLine.arguments.dropFirst())
exit(Tool.run(arguments).rawValue)
