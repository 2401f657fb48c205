// The KioskLibrary target; see ../shared/DESIGN.md for what it holds.
import KioskSystem
