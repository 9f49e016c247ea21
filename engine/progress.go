package engine

// Progress is one report of how a document's partitioning advances, for callers that show it
// to a person (the CLI's progress line, a job's log). Reports are advisory: a partitioner that
// sends none is correct, and a caller must not depend on their number or timing.
type Progress struct {
	// Strategy, when set, names the strategy chosen for a PDF or image (or for some of its
	// pages) and Reason says why in a few words ("text layer on every page").
	Strategy string
	Reason   string
	// Pages lists the pages Strategy applies to when it covers only some of them (1-based).
	Pages []int
	// Page of Total is the last page done (both 0 in a strategy report); Stage names the work
	// ("fast", "ocr", a plugin's own word).
	Page, Total int
	Stage       string
}

// Report sends p to the options' Progress hook, if any.
func (o *Options) Report(p Progress) {
	if o.Progress != nil {
		o.Progress(p)
	}
}

// ReportPage reports that page of total is done.
func (o *Options) ReportPage(page, total int, stage string) {
	o.Report(Progress{Page: page, Total: total, Stage: stage})
}
