// yt-gst — where templates are found: $YT_GST_PIPELINES, the user's config, the installed share dir, built-ins.

/// The named templates a program offers its users: the files NAME.pipeline of some folders, then the built-in ones.
public struct TemplateLibrary: Sendable {
    /// Folders searched in order; the first template of a name wins.
    public var directories: [String]

    public init(directories: [String]) { self.directories = directories }

    /// The standard search order, so an installed yt-gst works from any directory.
    public static var standard: TemplateLibrary {
        var directories: [String] = []
        if let custom = FileSystem.environment("YT_GST_PIPELINES") {
            directories += custom.split(separator: ":").map(String.init)
        }
        if let config = FileSystem.environment("XDG_CONFIG_HOME"), !config.isEmpty {
            directories.append(config + "/yt-gst/pipelines")
        } else if let home = FileSystem.environment("HOME") {
            directories.append(home + "/.config/yt-gst/pipelines")
        }
        if let executable = FileSystem.executablePath {
            // <prefix>/bin/yt-gst → <prefix>/share/yt-gst/pipelines
            directories.append(
                FileSystem.directory(of: FileSystem.directory(of: executable)) + "/share/yt-gst/pipelines")
        }
        return TemplateLibrary(directories: directories)
    }

    /// Every template, by name, the first found of each name.
    public func all() -> [PipelineTemplate] {
        var found: [String: PipelineTemplate] = [:]
        for directory in directories {
            for file in FileSystem.list(directory) where file.hasSuffix(".pipeline") {
                let name = String(file.dropLast(".pipeline".count))
                guard found[name] == nil, let text = FileSystem.readText(directory + "/" + file) else { continue }
                found[name] = PipelineTemplate(name: name, contents: text, origin: directory + "/" + file)
            }
        }
        for (name, text) in BuiltinTemplates.all where found[name] == nil {
            found[name] = PipelineTemplate(name: name, contents: text, origin: "built-in")
        }
        return found.values.sorted { $0.name < $1.name }
    }

    public func template(named name: String) -> PipelineTemplate? {
        for directory in directories {
            if let text = FileSystem.readText(directory + "/" + name + ".pipeline") {
                return PipelineTemplate(name: name, contents: text, origin: directory + "/" + name + ".pipeline")
            }
        }
        return BuiltinTemplates.all.first { $0.name == name }.map {
            PipelineTemplate(name: name, contents: $0.text, origin: "built-in")
        }
    }
}
