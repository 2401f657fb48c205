// SPDX-License-Identifier: GPL-3.0-or-later
import KioskSystem
import KioskTestSupport
import Testing

/// The targets depend on each other exactly as docs/architecture.md's "Module graph" table says
/// (issue 48): the table, the manifest's `dependencies:` and the `import` lines of each target's
/// sources must agree, so a new edge (the core importing the screen, a test importing the app) is a
/// change to the documented design or a failing test, never a quiet drift.
///
/// Only the project's own targets (`Kiosk…`, `kiosk-…`) are checked; the C modules are the
/// manifest's business.
struct ModuleGraphTests {
    /// A target of Package.swift: its kind, its own targets among its dependencies, its folder.
    struct Target: Equatable {
        var kind: String
        var dependencies: Set<String>
        var path: String
    }

    @Test func everyTargetAndEdgeOfTheManifestIsTheDocumentedOne() throws {
        let documented = try Self.documentedGraph()
        let manifest = try Self.manifest().filter { $0.value.kind != "testTarget" }
        #expect(Set(manifest.keys) == Set(documented.map(\.target)), "targets of Package.swift vs the table")
        for (target, dependencies) in documented {
            #expect(
                manifest[target]?.dependencies == dependencies,
                "\(target): Package.swift says \(manifest[target]?.dependencies.sorted() ?? []), the table \(dependencies.sorted())"
            )
        }
    }

    @Test func theDocumentedGraphListsEachTargetAfterEverythingItDependsOn() throws {
        var seen: Set<String> = []
        for (target, dependencies) in try Self.documentedGraph() {
            #expect(
                dependencies.isSubset(of: seen),
                "\(target) depends on \(dependencies.subtracting(seen).sorted()), listed below it")
            seen.insert(target)
        }
    }

    @Test func everyTargetImportsOnlyWhatItDeclares() throws {
        let targets = try Self.manifest()
        for (name, target) in targets.sorted(by: { $0.key < $1.key }) {
            let imports = try Self.imports(under: TestPaths.repository + "/" + target.path)
            for (module, file) in imports where targets[module] != nil && !target.dependencies.contains(module) {
                Issue.record("\(file) imports \(module), which \(name) does not depend on in Package.swift")
            }
        }
    }

    /// The core sees the engine, the library, the screen and the inputs only through KioskModel's
    /// protocols and values (issue 48), so it never imports their modules or the app.
    @Test func theCoreDependsOnTheModelTheConfigurationAndTheSystemOnly() throws {
        let allowed: Set<String> = ["KioskModel", "KioskConfig", "KioskSystem"]
        let core = try #require(try Self.manifest()["KioskCore"])
        #expect(core.dependencies == allowed, "KioskCore depends on \(core.dependencies.sorted())")
        for (module, file) in try Self.imports(under: TestPaths.repository + "/Sources/KioskCore")
        where !allowed.contains(module) {
            Issue.record("\(file) imports \(module): KioskCore uses KioskModel, KioskConfig and KioskSystem only")
        }
    }

    /// A test target tests one module: it depends on that module, what the documented graph puts
    /// below it, and the test support; only the app's own tests depend on the app.
    @Test func eachTestTargetDependsOnItsModuleAndWhatLiesBelowIt() throws {
        let documented = Dictionary(
            uniqueKeysWithValues: try Self.documentedGraph().map { ($0.target, $0.dependencies) })
        for (name, target) in try Self.manifest() where target.kind == "testTarget" {
            let module = name == "KioskFuzzTests" ? "KioskFuzzTargets" : String(name.dropLast("Tests".count))
            guard documented[module] != nil else {
                Issue.record("\(name) tests \(module), which the table does not list")
                continue
            }
            var allowed: Set<String> = [module, "KioskTestSupport"]
            var pending = [module]
            while let next = pending.popLast() {
                for below in documented[next] ?? [] where allowed.insert(below).inserted { pending.append(below) }
            }
            let extra = target.dependencies.subtracting(allowed)
            #expect(extra.isEmpty, "\(name) depends on \(extra.sorted()), not \(module) or below it")
            if name != "KioskAppTests" {
                #expect(!target.dependencies.contains("KioskApp"), "\(name) depends on KioskApp")
            }
        }
    }

    @Test func theManifestReaderFindsATargetsDependenciesAndPath() throws {
        let text = """
            .target(name: "KioskA", dependencies: ["KioskSystem", "CFoo"], swiftSettings: strict),
            .testTarget(
                name: "KioskATests",
                dependencies: [
                    "KioskA", "KioskTestSupport",
                ],
                path: "Tests/Elsewhere"),
            .systemLibrary(name: "CFoo", pkgConfig: "foo"),
            """
        let targets = Self.manifest(text)
        #expect(targets["KioskA"] == Target(kind: "target", dependencies: ["KioskSystem"], path: "Sources/KioskA"))
        #expect(
            targets["KioskATests"]
                == Target(kind: "testTarget", dependencies: ["KioskA", "KioskTestSupport"], path: "Tests/Elsewhere"))
        #expect(targets["CFoo"] == nil)
    }

    // MARK: Reading the manifest, the table and the sources

    static func manifest() throws -> [String: Target] {
        manifest(String(decoding: try Syscalls.readFile(TestPaths.repository + "/Package.swift"), as: UTF8.self))
    }

    /// The project's targets in a manifest's text: each `.target(`, `.executableTarget(` or
    /// `.testTarget(` call up to the next one.
    static func manifest(_ text: String) -> [String: Target] {
        var result: [String: Target] = [:]
        let kinds = ["target", "executableTarget", "testTarget", "systemLibrary"]
        var calls: [(kind: String, start: String.Index)] = []
        var index = text.startIndex
        while let dot = text[index...].firstIndex(of: ".") {
            let rest = text[text.index(after: dot)...]
            if let kind = kinds.first(where: { rest.hasPrefix($0 + "(") }) { calls.append((kind, dot)) }
            index = text.index(after: dot)
        }
        for (number, call) in calls.enumerated() {
            let end = number + 1 < calls.count ? calls[number + 1].start : text.endIndex
            let body = text[call.start..<end]
            guard call.kind != "systemLibrary", let name = quoted(after: "name:", in: body), isOwn(name) else {
                continue
            }
            var dependencies: Set<String> = []
            if let list = body.firstRange(of: "dependencies:"), let open = body[list.upperBound...].firstIndex(of: "["),
                let close = body[open...].firstIndex(of: "]")
            {
                dependencies = Set(strings(in: body[open..<close]).filter(isOwn))
            }
            let path = quoted(after: "path:", in: body) ?? (call.kind == "testTarget" ? "Tests/" : "Sources/") + name
            result[name] = Target(kind: call.kind, dependencies: dependencies, path: path)
        }
        return result
    }

    /// The rows of the "Module graph" table in docs/architecture.md, in order: a target in the first
    /// column, its dependencies (or "—") in the second, each name in backticks.
    static func documentedGraph() throws -> [(target: String, dependencies: Set<String>)] {
        let text = String(
            decoding: try Syscalls.readFile(TestPaths.repository + "/docs/architecture.md"), as: UTF8.self)
        guard let heading = text.firstRange(of: "\n## Module graph\n") else {
            throw GraphError("no \"## Module graph\" in docs/architecture.md")
        }
        var rows: [(String, Set<String>)] = []
        for line in text[heading.upperBound...].split(separator: "\n") {
            if line.hasPrefix("## ") { break }
            let cells = line.split(separator: "|", omittingEmptySubsequences: false)
            guard line.hasPrefix("| `"), cells.count >= 4 else { continue }
            guard let target = backticked(cells[1]).first else { continue }
            rows.append((target, Set(backticked(cells[2]))))
        }
        if rows.isEmpty { throw GraphError("the Module graph table of docs/architecture.md has no rows") }
        return rows
    }

    /// Every `import` of a project module in the Swift files under `directory`, with its file.
    static func imports(under directory: String) throws -> [(module: String, file: String)] {
        var found: [(String, String)] = []
        for file in try SourceFiles.swift(under: directory) {
            for line in String(decoding: try Syscalls.readFile(file), as: UTF8.self).split(separator: "\n") {
                var words = line.split(separator: " ").map(String.init)
                while let first = words.first,
                    first.hasPrefix("@") || ["public", "internal", "package"].contains(first)
                {
                    words.removeFirst()
                }
                guard words.count >= 2, words[0] == "import", isOwn(words[1]) else { continue }
                found.append((words[1], String(file.dropFirst(TestPaths.repository.count + 1))))
            }
        }
        return found
    }

    private static func isOwn(_ name: String) -> Bool { name.hasPrefix("Kiosk") || name.hasPrefix("kiosk-") }

    private static func quoted(after key: String, in text: Substring) -> String? {
        guard let range = text.firstRange(of: key) else { return nil }
        return strings(in: text[range.upperBound...]).first
    }

    private static func strings(in text: Substring) -> [String] {
        text.split(separator: "\"", omittingEmptySubsequences: false).enumerated().filter { $0.offset % 2 == 1 }.map {
            String($0.element)
        }
    }

    private static func backticked(_ text: Substring) -> [String] {
        text.split(separator: "`", omittingEmptySubsequences: false).enumerated().filter { $0.offset % 2 == 1 }.map {
            String($0.element)
        }
    }

    struct GraphError: Error, CustomStringConvertible {
        let description: String
        init(_ description: String) { self.description = description }
    }
}
