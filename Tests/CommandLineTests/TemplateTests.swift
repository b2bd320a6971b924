// yt-gst — pipeline templates: placeholders taken out of the launch text and set as properties, every shipped
// template parses, and the built-in copies match pipelines/.
import Foundation
import GstPlayer
import TestSupport
import Testing

@testable import AppSrcFeeder
@testable import yt_gst

@Suite struct TemplateTests {
    @Test func placeholdersBecomePropertiesOfNamedElements() throws {
        let template = PipelineTemplate(
            name: "t",
            contents: "# A test.\nappsrc name=src ! wavenc ! filesink location=${location} sync=${sync:-false}",
            origin: "test")
        #expect(template.description == "A test.")
        let (launch, slots) = template.split()
        #expect(launch == "appsrc name=src ! wavenc ! filesink name=yt-gst-slot1")
        #expect(slots.map(\.property) == ["location", "sync"])
        #expect(slots.allSatisfy { $0.element == "yt-gst-slot1" })
    }

    @Test func anExistingNameIsUsedAndPadReferencesAreSkipped() {
        let template = PipelineTemplate(
            name: "t",
            contents:
                "rtpbin name=rtp appsrc name=src ! rtp.send_rtp_sink_0 rtp.send_rtp_src_0 ! udpsink name=out host=${host} port=${port:-5004}",
            origin: "test")
        let (launch, slots) = template.split()
        #expect(!launch.contains("${"))
        #expect(
            slots == [
                .init(element: "out", property: "host", valueTemplate: "${host}"),
                .init(element: "out", property: "port", valueTemplate: "${port:-5004}"),
            ])
    }

    @Test func theRestOfTheTextStaysAsWritten() {
        let template = PipelineTemplate(
            name: "t", contents: "appsrc name=src ! audioconvert ! filesink location = \"${location}\"  sync=true",
            origin: "test")
        let (launch, slots) = template.split()
        #expect(launch == "appsrc name=src ! audioconvert ! filesink name=yt-gst-slot1  sync=true")
        #expect(slots == [.init(element: "yt-gst-slot1", property: "location", valueTemplate: "${location}")])
    }

    @Test func valuesArriveUnchanged() throws {
        let template = PipelineTemplate(
            name: "f", contents: "appsrc name=src ! filesink location=${location}", origin: "t")
        let tricky = "my song! \"quoted\" 'single' a=b ${not} ! x.wav"
        let resolved = try PipelineChoice.instantiate(template, values: ["location": tricky])
        #expect(resolved.properties == [.init(element: "yt-gst-slot1", property: "location", value: tricky)])
    }

    @Test func missingAndUnknownValuesAreOneLineErrors() {
        let template = PipelineTemplate(
            name: "f", contents: "appsrc name=src ! filesink location=${location}", origin: "t")
        let missing = #expect(throws: UsageError.self) { try PipelineChoice.instantiate(template, values: [:]) }
        #expect(missing?.message.contains("${location}") == true && missing?.message.contains("\"f\"") == true)
        #expect(missing?.showsHelp == false)
        let unknown = #expect(throws: UsageError.self) {
            try PipelineChoice.instantiate(template, values: ["location": "x", "colour": "red"])
        }
        #expect(unknown?.message.contains("colour") == true)
    }

    @Test func optionalPlaceholdersLeaveThePropertyAlone() throws {
        let template = PipelineTemplate(
            name: "p", contents: "appsrc name=src ! pulsesink device=${device:-}", origin: "t")
        #expect(try PipelineChoice.instantiate(template, values: [:]).properties.isEmpty)
        #expect(try PipelineChoice.instantiate(template, values: ["device": "d"]).properties.count == 1)
    }

    @Test func builtInTemplatesMatchThePipelinesFolder() throws {
        let folder = Paths.packageRoot.appendingPathComponent("pipelines")
        let files = try FileManager.default.contentsOfDirectory(atPath: folder.path).filter {
            $0.hasSuffix(".pipeline")
        }
        #expect(files.count == BuiltinTemplates.all.count, "run scripts/embed-templates.sh")
        for file in files {
            let text = try String(contentsOf: folder.appendingPathComponent(file), encoding: .utf8)
            let builtIn = BuiltinTemplates.all.first { $0.name + ".pipeline" == file }
            #expect(builtIn?.text == text.trimmingCharacters(in: .newlines), "\(file): run scripts/embed-templates.sh")
        }
    }

    /// `--sink NAME` uses a template whole only when one of its elements is an appsrc; a sink fragment that merely
    /// mentions "appsrc" (here in a file name) still gets the default conversion in front of it.
    @Test func sinkTemplateIsUsedWholeOnlyWithAnAppsrcElement() throws {
        let directory = FileManager.default.temporaryDirectory.appendingPathComponent("yt-gst-sinks-\(getpid())")
        try FileManager.default.createDirectory(at: directory, withIntermediateDirectories: true)
        defer { try? FileManager.default.removeItem(at: directory) }
        let fragment = "wavenc ! filesink location=/tmp/appsrc-capture.wav"
        let whole = "appsrc name=src ! audioconvert ! fakesink"
        try "# A fragment\n\(fragment)\n".write(
            to: directory.appendingPathComponent("fragment.pipeline"), atomically: true, encoding: .utf8)
        try "# Whole\n\(whole)\n".write(
            to: directory.appendingPathComponent("whole.pipeline"), atomically: true, encoding: .utf8)
        let library = TemplateLibrary(directories: [directory.path])
        func launch(sink: String) throws -> String {
            try PipelineChoice.resolve(pipeline: nil, sink: sink, settings: [], library: library).launch
        }
        #expect(try launch(sink: "fragment") == PipelineChoice.sinkPrefix + fragment)
        #expect(try launch(sink: "whole") == whole)
    }

    @Test func everyShippedTemplateHasADescriptionAndAnAppsrc() {
        let required = [
            "default", "pulse", "alsa", "null", "wav-file", "raw-file", "level", "rtp-l16", "rtp-opus", "srt", "tcp",
            "icecast",
        ]
        let names = BuiltinTemplates.all.map(\.name)
        for name in required { #expect(names.contains(name), "missing template \(name)") }
        for (name, text) in BuiltinTemplates.all {
            let template = PipelineTemplate(name: name, contents: text, origin: "built-in")
            #expect(!template.description.isEmpty, "\(name)")
            // Record's source templates end where record's conversion and appsink begin.
            let isSource = RecordCommand.sourceTemplates.contains(name)
            #expect(template.text.contains("appsrc name=src") != isSource, "\(name)")
        }
    }

    /// Every template whose elements are installed here parses, gets its values set, and has its appsrc.
    @Test func everyShippedTemplateParses() throws {
        Gst.initialize()
        let sample = ["location": "/tmp/x.wav", "host": "10.0.0.1", "uri": "srt://10.0.0.1:7001", "password": "pw"]
        for (name, text) in BuiltinTemplates.all {
            var template = PipelineTemplate(name: name, contents: text, origin: "built-in")
            let isSource = RecordCommand.sourceTemplates.contains(name)
            if isSource {
                let record = try RecordCommand(RecordCommand.spec.parse(["out.wav"]))
                template = PipelineTemplate(name: name, contents: record.launch(source: template.text), origin: "t")
            }
            let needed = Dictionary(
                uniqueKeysWithValues: template.placeholders.filter { $0.fallback == nil }.map {
                    ($0.key, sample[$0.key] ?? "x")
                })
            let resolved = try PipelineChoice.instantiate(template, values: needed)
            let parsed = Result { () throws(GstError) -> Pipeline in try Pipeline(launch: resolved.launch) }
            if case .failure(let error) = parsed, error.kind == .missingElement {
                print("template \(name): \(error.message) (not installed here)")
                continue
            }
            let pipeline = try parsed.get()
            if isSource { _ = try pipeline.appSink(named: "sink") } else { _ = try pipeline.appSource(named: "src") }
            try pipeline.apply(resolved.properties)
        }
    }

    @Test func processingIsInsertedRightAfterTheAppsrc() {
        let processing = Processing(volume: true, tempo: false, level: true)
        #expect(
            processing.inserted(into: "appsrc name=src is-live=false ! audioconvert ! autoaudiosink")
                == "appsrc name=src is-live=false ! audioconvert ! volume name=volume ! level name=level interval=100000000 ! audioconvert ! audioconvert ! autoaudiosink"
        )
        #expect(
            Processing(volume: false, tempo: false, level: false).inserted(into: "appsrc name=src ! fakesink")
                == "appsrc name=src ! fakesink")
        #expect(
            processing.inserted(into: "appsrc name=src ! volume name=volume ! fakesink").contains("level name=level"))
    }
}
