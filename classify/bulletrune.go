package classify

// IsBulletRune reports whether r is one of the reference's bullet characters. The text
// partitioner's bullet-paragraph grouping splits on them.
func IsBulletRune(r rune) bool { return isBullet(r) }
