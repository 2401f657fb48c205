// SPDX-License-Identifier: GPL-3.0-or-later
import KioskModel

/// The problems of one scan, kept as they are found and bounded as they are found (a stick of
/// 200 000 broken files must not hold 200 000 problem lines in memory to print 2 000): at most
/// `perFolder` in a row from one folder and `total` in all; the rest are counted, and `finished`
/// adds a line saying how many of each were not listed.
///
/// Thread: a value; the scanning thread.
struct ProblemList {
    let perFolder: Int
    let total: Int
    private(set) var kept: [LibraryProblem] = []
    private var folder: String?
    private var inFolder = 0
    private var droppedInFolder = 0
    private var dropped = 0
    private var volume: VolumeID?

    init(limits: ScanLimits) {
        perFolder = max(1, limits.maxProblemsPerFolder)
        total = max(1, limits.maxProblems)
    }

    var count: Int { kept.count }

    mutating func append(_ problem: LibraryProblem) {
        volume = problem.volume
        let folder = Track.folder(of: problem.relativePath)
        if folder != self.folder {
            closeFolder()
            self.folder = folder
        }
        inFolder += 1
        if inFolder > perFolder {
            droppedInFolder += 1
        } else if kept.count >= total {
            dropped += 1
        } else {
            kept.append(problem)
        }
    }

    mutating func append(contentsOf problems: [LibraryProblem]) {
        for problem in problems { append(problem) }
    }

    private mutating func closeFolder() {
        if droppedInFolder > 0, let volume, let folder {
            let line = LibraryProblem(
                volume: volume, relativePath: folder,
                reason: "\(droppedInFolder) more problems in this folder not listed",
                severity: .warning)
            if kept.count < total { kept.append(line) } else { dropped += droppedInFolder }
        }
        inFolder = 0
        droppedInFolder = 0
    }

    /// The kept problems and the summary lines.
    mutating func finished() -> [LibraryProblem] {
        closeFolder()
        folder = nil
        if dropped > 0, let volume {
            kept.append(
                LibraryProblem(
                    volume: volume, relativePath: "", reason: "\(dropped) more problems not listed", severity: .warning)
            )
            dropped = 0
        }
        return kept
    }
}
