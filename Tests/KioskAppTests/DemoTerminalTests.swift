// SPDX-License-Identifier: GPL-3.0-or-later
import Glibc
import KioskConfig
import KioskCore
import KioskDisplay
import KioskInput
import KioskModel
import KioskSystem
import KioskTestSupport
import Testing

@testable import KioskApp

/// A terminal for tests: replays what a `TerminalSurface` wrote (cursor moves, colours, the
/// alternate screen, UTF-8 text) into a grid of cells, remembering whether the picture ("▀") or
/// text wrote each cell, so that text drawn over the picture (or the reverse) is caught.
struct TerminalCapture {
    enum Owner { case none, picture, text }
    let columns: Int
    let rows: Int
    private(set) var cells: [[String]]
    private(set) var owners: [[Owner]]
    /// Cells written by both the picture and text: (row, column), 0-based.
    private(set) var overlaps: [(Int, Int)] = []
    /// Writes outside the terminal.
    private(set) var outside = 0

    init(columns: Int, rows: Int) {
        self.columns = columns
        self.rows = rows
        cells = Array(repeating: Array(repeating: " ", count: columns), count: rows)
        owners = Array(repeating: Array(repeating: .none, count: columns), count: rows)
    }

    /// Replays `text`: what comes before the switch to the alternate screen and after the switch
    /// back (lines printed before the demo starts, the shell's screen) is not part of the picture.
    mutating func feed(_ text: String) {
        var row = 0
        var column = 0
        var onAlternateScreen = false
        TerminalStream.forEach(text) { piece in
            let s: Unicode.Scalar
            switch piece {
            case .control(let body, let command):
                if body == "?1049" && command == "h" {
                    self = TerminalCapture(columns: columns, rows: rows)
                    onAlternateScreen = true
                } else if body == "?1049" && command == "l" {
                    return false
                } else if command == "H" {
                    let numbers = body.split(separator: ";").compactMap { Int($0) }
                    row = numbers[0] - 1
                    column = numbers[1] - 1
                }
                return true
            case .scalar(let scalar):
                s = scalar
            }
            if s == "\n" {
                row += 1
                column = 0
                return true
            }
            guard onAlternateScreen else { return true }
            let owner: Owner = s == "\u{2580}" ? .picture : .text
            let width = max(1, TerminalText.width(s))
            guard row >= 0, row < rows, column >= 0, column + width <= columns else {
                outside += 1
                column += width
                return true
            }
            for c in column..<(column + width) {
                if owners[row][c] != .none && owners[row][c] != owner { overlaps.append((row, c)) }
                owners[row][c] = owner
                cells[row][c] = c == column ? String(s) : ""
            }
            column += width
            return true
        }
    }

    /// The screen as text, the picture's cells as "▀".
    var lines: [String] { cells.map { $0.joined() } }
    var text: String { lines.joined(separator: "\n") }
}

/// `make demo`'s terminal: the picture scaled into the terminal beside the keys and the notes,
/// what plays in words, at the sizes people's terminals have.
@Suite(.serialized)
struct DemoScreenTests {
    static let fonts = [
        "/usr/share/fonts/truetype/dejavu/DejaVuSans.ttf", "/usr/share/fonts/truetype/dejavu/DejaVuSans-Bold.ttf",
        "/usr/share/fonts/truetype/vlgothic/VL-PGothic-Regular.ttf",
    ]
    static let note = "No sound card: you will hear nothing; the player plays into a silent sink."

    /// What the demo's terminal shows for `state` in a terminal of `size`, as the demo makes it.
    func capture(_ state: NowPlayingState, size: TerminalSize) throws -> TerminalCapture {
        let dir = try TemporaryDirectory()
        defer { dir.remove() }
        let fd = try Syscalls.open(dir.file("tty"), O_WRONLY | O_CREAT | O_TRUNC)
        defer { Syscalls.closeIgnoringErrors(fd) }
        let loop = try EventLoop()
        let panel = Appliance.terminalPanel(keyboard: Keymap.keyboardMap, quits: true, notes: [Self.note])
        let surface = TerminalSurface(fd: fd, size: size, width: 320, height: 240, panel: panel)
        let fonts = try FontSet.load(regular: Self.fonts[0], bold: Self.fonts[1], cjk: Self.fonts[2])
        let display = try Display(loop: loop, surface: surface, fonts: fonts)
        display.show(.nowPlaying(state))
        var screen = TerminalCapture(columns: size.columns, rows: size.rows)
        screen.feed(String(decoding: try Syscalls.readFile(dir.file("tty")), as: UTF8.self))
        display.shutdown()
        return screen
    }

    static var shuffledWithSleep: NowPlayingState {
        var state = SampleScreens.nowPlaying
        state.categoryLabel = "Album · shuffle · repeat · sleep 14:52"
        return state
    }

    @Test(
        .enabled(if: fonts.allSatisfy(Syscalls.exists), "needs fonts-dejavu-core and fonts-vlgothic"),
        arguments: [TerminalSize(columns: 80, rows: 24), TerminalSize(columns: 120, rows: 45)])
    func theKeysTheNoteAndWhatPlaysStayInSightBesideThePicture(size: TerminalSize) throws {
        let screen = try capture(Self.shuffledWithSleep, size: size)
        let text = screen.text
        for row in Keymap.keyboardHelp(Keymap.keyboardMap) {
            #expect(text.contains(row.words == Action.shutdown.words ? "quit" : row.words), "\(row.words) at \(size)")
        }
        #expect(text.contains("Space") && text.contains("rewind") && text.contains("fast-forward"))
        #expect(text.contains("No sound card"), "the demo at \(size):\n\(text)")
        #expect(text.contains("Blue Train Station") && text.contains("The Night Owls"))
        #expect(text.contains("· shuffle") && text.contains("· repeat") && text.contains("· sleep 14:52"))
        #expect(text.contains("1:23 / 4:07"))
    }

    @Test(
        .enabled(if: fonts.allSatisfy(Syscalls.exists), "needs fonts-dejavu-core and fonts-vlgothic"),
        arguments: [
            TerminalSize(columns: 80, rows: 24), TerminalSize(columns: 120, rows: 45),
            TerminalSize(columns: 50, rows: 30), TerminalSize(columns: 64, rows: 20),
        ])
    func noTextIsDrawnOverThePictureAndNothingLeavesTheTerminal(size: TerminalSize) throws {
        let screen = try capture(Self.shuffledWithSleep, size: size)
        #expect(screen.overlaps.isEmpty, "overlapping cells at \(size): \(screen.overlaps.prefix(5))")
        #expect(screen.outside == 0)
        #expect(screen.lines.last!.allSatisfy { $0 == " " }, "the last row is the shell's")
        let pictureCells = screen.owners.joined().filter { $0 == .picture }.count
        #expect(pictureCells > size.columns * size.rows / 10, "the picture takes a fair share of the terminal")
    }

    @Test func thePictureKeepsTheCanvasShapeAndGrowsWithTheTerminal() {
        let canvas = Size(width: 320, height: 240)
        let small = TerminalLayout(size: TerminalSize(columns: 80, rows: 24), canvas: canvas)
        let large = TerminalLayout(size: TerminalSize(columns: 120, rows: 45), canvas: canvas)
        for layout in [small, large] {
            let shape = Double(layout.picture.width) / Double(layout.picture.height * 2)
            #expect(abs(shape - 4.0 / 3.0) < 0.1)
        }
        #expect(large.picture.width > small.picture.width)
    }

    @Test func theHelpPagesSayWhatAButtonDoesInWords() throws {
        let board = try BoardProfile.parse(
            Array(
                #"""
                {"name": "t", "description": "t", "screen": {"type": "none"},
                 "buttons": [{"name": "Next", "line": 5, "press": "next", "hold": "seek-forward"}]}
                """#.utf8), file: "(test)")
        var options = ApplianceOptions()
        options.keyboard = false
        let appliance = try Appliance(resolved: ResolvedConfig(config: Config(), board: board), options: options)
        let entries = appliance.helpEntries()
        #expect(entries.contains(HelpEntry(control: "Next", action: "next track")))
        #expect(entries.contains(HelpEntry(control: "Hold Next", action: "fast-forward")))
    }
}

/// docs/buttons-and-cards.md says what the code says: its tables are made from `Action.words`
/// and `Keymap.keyboardHelp`, the source of the help pages and the demo's panel.
struct ButtonWordsDocumentTests {
    static var document: String {
        get throws {
            String(decoding: try Syscalls.readFile(TestPaths.repository + "/docs/buttons-and-cards.md"), as: UTF8.self)
        }
    }

    @Test func theDocumentListsTheTerminalKeysInTheCodesWords() throws {
        var table = "| keys | what they do |\n|---|---|\n"
        for row in Keymap.keyboardHelp(Keymap.keyboardMap) {
            table += "| \(row.keys.map { "`\($0)`" }.joined(separator: " ")) | \(row.words) |\n"
        }
        #expect(try Self.document.contains(table), "docs/buttons-and-cards.md should hold:\n\(table)")
    }

    @Test func theDocumentNamesEveryActionInTheCodesWords() throws {
        var table = "| action (board profiles) | the help pages say |\n|---|---|\n"
        for action in Action.allCases { table += "| `\(action.rawValue)` | \(action.words) |\n" }
        #expect(try Self.document.contains(table), "docs/buttons-and-cards.md should hold:\n\(table)")
    }
}
