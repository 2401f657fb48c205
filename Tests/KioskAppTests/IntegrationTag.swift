import Testing

// Temporary until KioskTestSupport's `Tag.integration` lands (helper h32-tests).
extension Tag {
    @Tag static var integration: Self
}
