package ui

// Field is one input of a connector form. The keys are the config keys of platform.md
// §1.9–§1.10 (and the local connector's), so a form posts the API's config object as is.
type Field struct {
	Key      string
	Label    string
	Input    string // text, url, password, number, checkbox, list (comma-separated → array)
	Required bool
	Secret   bool // stored encrypted, returned masked; never put back into an input
	Help     string
	// Hint replaces the API's pattern message (the reference's regex wording) next to the field.
	Hint    string
	Default string // initial value; "true"/"false" for checkboxes
	Min     string
	// SourceOnly fields mean nothing to a destination (which folders to read, which files).
	SourceOnly bool
}

// Kind is one connector type and the roles it can play.
type Kind struct {
	Type        string
	Label       string
	Source      bool
	Destination bool
	Fields      []Field
	// Summary is the config key shown in lists (the location of the data).
	Summary string
}

// Kinds are the connector types the UI offers.
var Kinds = []Kind{
	{
		Type: "azure", Label: "Azure Blob Storage", Source: true, Destination: true, Summary: "remote_url",
		Fields: []Field{
			{Key: "remote_url", Label: "Container URL", Input: "text", Required: true, Help: "The container's address as the Azure portal shows it, https://<account>.blob.core.windows.net/<container>, optionally followed by /<folder>; az://<container>/<folder> works too.",
				Hint: "Enter the container's address: https://<account>.blob.core.windows.net/<container> (from the Azure portal) or az://<container>/<folder>."},
			{Key: "account_name", Label: "Account name", Input: "text", Help: "With an account key or SAS token; alone for anonymous access."},
			{Key: "account_key", Label: "Account key", Input: "password", Secret: true},
			{Key: "sas_token", Label: "SAS token", Input: "password", Secret: true},
			{Key: "connection_string", Label: "Connection string", Input: "password", Secret: true, Help: "Overrides the fields above when set."},
			{Key: "recursive", Label: "Include sub-folders", Input: "checkbox", Default: "true", SourceOnly: true},
		},
	},
	{
		Type: "confluence", Label: "Confluence", Source: true, Summary: "url",
		Fields: []Field{
			{Key: "url", Label: "Site URL", Input: "url", Required: true, Help: "e.g. https://example.atlassian.net"},
			{Key: "username", Label: "User name", Input: "text", Help: "With an API token or password (basic auth)."},
			{Key: "api_token", Label: "API token", Input: "password", Secret: true},
			{Key: "password", Label: "Password", Input: "password", Secret: true},
			{Key: "token", Label: "Personal access token", Input: "password", Secret: true, Help: "Data Center only; leave user name, password and API token empty."},
			{Key: "oauth_token", Label: "OAuth 2.0 access token", Input: "password", Secret: true, Help: "Confluence Cloud only; leave user name, password and the other tokens empty."},
			{Key: "cloud", Label: "Confluence Cloud", Input: "checkbox", Default: "false"},
			{Key: "cloud_id", Label: "Cloud ID", Input: "text", Help: "Cloud only. Needed by scoped API tokens and service accounts: calls go through Atlassian's API gateway. The site's /_edge/tenant_info shows it."},
			{Key: "scoped_token", Label: "Scoped API token (look up the cloud ID)", Input: "checkbox", Default: "false", Help: "Cloud only: use the API gateway without entering the cloud ID; it is read from the site."},
			{Key: "spaces", Label: "Space keys", Input: "list", Help: "Comma-separated keys, e.g. ENG, HR. Empty: all spaces."},
			{Key: "max_num_of_spaces", Label: "Maximum spaces", Input: "number", Default: "500", Min: "1"},
			{Key: "max_num_of_docs_from_each_space", Label: "Maximum pages per space", Input: "number", Default: "150", Min: "1"},
			{Key: "include_archived", Label: "Include archived pages", Input: "checkbox", Default: "false"},
			{Key: "extract_images", Label: "Embed images", Input: "checkbox", Default: "false"},
			{Key: "extract_files", Label: "Include attached files", Input: "checkbox", Default: "false"},
			{Key: "media_hosts", Label: "Attachment download hosts", Input: "list", Help: "Comma-separated host names downloads may be redirected to; credentials are never sent there. Empty: api.media.atlassian.com on Cloud."},
		},
	},
	{
		Type: "local", Label: "Local folder", Source: true, Destination: true, Summary: "path",
		Fields: []Field{
			{Key: "path", Label: "Folder path", Input: "text", Required: true, Help: "A folder inside the server's local root (--local-root, by default data/local where the server runs): a relative path such as documents is taken under it."},
			{Key: "recursive", Label: "Include sub-folders", Input: "checkbox", Default: "true", SourceOnly: true},
			{Key: "glob", Label: "File pattern", Input: "text", Help: "Only files matching this glob, e.g. *.pdf.", SourceOnly: true},
		},
	},
}

// kindsFor lists the kinds usable in a role ("source" or "destination").
func kindsFor(role string) []Kind {
	var out []Kind
	for _, k := range Kinds {
		if (role == "source" && k.Source) || (role == "destination" && k.Destination) {
			out = append(out, k)
		}
	}
	return out
}

// Schedules are the phrases the workflows API accepts (platform.md §1.5).
var Schedules = []string{"every 15 minutes", "every hour", "every 2 hours", "every 4 hours", "every 6 hours",
	"every 8 hours", "every 10 hours", "every 12 hours", "daily", "weekly", "monthly"}

// Strategies are the partition strategies offered for PDFs and images.
var Strategies = []string{"auto", "fast", "hi_res", "ocr_only", "vlm"}

// Chunker is a chunking choice: the API value and its label.
type Chunker struct{ Value, Label string }

// Chunkers are the chunking strategies (empty value: no chunking).
var Chunkers = []Chunker{{"", "No chunking"}, {"basic", "Basic"}, {"by_title", "By title"}, {"by_page", "By page"}, {"by_similarity", "By similarity"}}
