// yt-gst — `make install` (scripts/install.sh) into a DESTDIR: the installed binary finds its templates from any
// directory, and the man page and completions are there and valid.
import Foundation
import TestSupport
import Testing

@Suite(.serialized) struct InstallTests {
    @Test func installedBinaryWorksFromAnywhereWithItsTemplates() throws {
        let dest = try Paths.makeScratch("install")
        defer { Paths.removeScratch(dest) }
        let script = Paths.packageRoot.appendingPathComponent("scripts/install.sh").path
        let installed = try Run.run(script, [Paths.binary, "/usr/local", dest.path], timeout: 60)
        #expect(installed.status == 0, "\(installed.stderr)")
        let root = dest.appendingPathComponent("usr/local")
        let binary = root.appendingPathComponent("bin/yt-gst").path
        let tone = try SyntheticWAV.tone(frames: 4_410, rate: 44_100).write(to: dest.appendingPathComponent("t.wav"))
        let output = dest.appendingPathComponent("out put!.wav").path

        // From / with no templates in the environment: the share directory beside the binary is found.
        let env = ["YT_GST_PIPELINES": "", "XDG_CONFIG_HOME": dest.appendingPathComponent("empty").path]
        let listed = try Run.run("/bin/sh", ["-c", "cd / && '\(binary)' pipelines"], environment: env)
        #expect(listed.stdout.contains(root.appendingPathComponent("share/yt-gst/pipelines/wav-file.pipeline").path))
        let played = try Run.run(
            "/bin/sh", ["-c", "cd / && '\(binary)' play '\(tone)' --pipeline wav-file --set 'location=\(output)'"],
            environment: env)
        #expect(played.status == 0, "\(played.stderr)")
        #expect(FileManager.default.fileExists(atPath: output))

        let man = try String(contentsOf: root.appendingPathComponent("share/man/man1/yt-gst.1"), encoding: .utf8)
        #expect(man.hasPrefix(".TH YT-GST 1"))
        for section in ["YT-GST PLAY", "YT-GST INFO", "YT-GST PIPELINES", "--pipeline NAME|LAUNCH"] {
            #expect(man.contains(section), "man page lacks \(section)")
        }

        let bash = root.appendingPathComponent("share/bash-completion/completions/yt-gst").path
        let completed = try Run.run(
            "/bin/bash",
            [
                "-c",
                "PATH='\(root.path)/bin':$PATH; source '\(bash)'; COMP_WORDS=(yt-gst play --pipeline rt); COMP_CWORD=3; _yt_gst; echo ${COMPREPLY[*]};"
                    + " COMP_WORDS=(yt-gst p); COMP_CWORD=1; _yt_gst; echo ${COMPREPLY[*]};"
                    + " COMP_WORDS=(yt-gst play --sh); COMP_CWORD=2; _yt_gst; echo ${COMPREPLY[*]}",
            ])
        let lines = completed.stdout.split(separator: "\n").map(String.init)
        #expect(lines.count == 3, "\(completed.stdout) \(completed.stderr)")
        #expect(lines.first == "rtp-l16 rtp-opus")
        #expect(lines.dropFirst().first == "play pipelines")
        #expect(lines.last == "--shuffle")
        if FileManager.default.fileExists(atPath: "/usr/bin/zsh") {
            let zsh = root.appendingPathComponent("share/zsh/site-functions/_yt-gst").path
            #expect(try Run.run("/usr/bin/zsh", ["-n", zsh]).status == 0)
        }
    }
}
