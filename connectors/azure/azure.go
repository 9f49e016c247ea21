// Package azure is the Azure Blob Storage connector: a source that lists and downloads the blobs
// under an az:// or abfs:// URL, and a destination that writes one JSON file of elements per
// processed document. Behaviour and metadata follow the reference connector (platform.md §3):
// zero-byte blobs are skipped, the version is the blob's ETag, dates are epoch-second strings.
package azure

import (
	"bytes"
	"context"
	"errors"
	"fmt"
	"io"
	"net/http"
	"net/url"
	"path"
	"strconv"
	"strings"
	"time"

	"github.com/Azure/azure-sdk-for-go/sdk/azcore"
	"github.com/Azure/azure-sdk-for-go/sdk/azcore/policy"
	"github.com/Azure/azure-sdk-for-go/sdk/azcore/to"
	"github.com/Azure/azure-sdk-for-go/sdk/storage/azblob/blob"
	"github.com/Azure/azure-sdk-for-go/sdk/storage/azblob/blockblob"
	"github.com/Azure/azure-sdk-for-go/sdk/storage/azblob/container"
	"github.com/Azure/azure-sdk-for-go/sdk/storage/azblob/service"

	"github.com/quarrydocs/quarry/connectors"
	"github.com/quarrydocs/quarry/element"
	"github.com/quarrydocs/quarry/internal/netguard"
)

func init() {
	connectors.Register(connectors.Kind{
		Type:    "azure",
		Secrets: secretKeys,
		Targets: []string{"remote_url", "account_name", "connection_string"},
		Validate: func(config map[string]any, env connectors.Env) error {
			c, err := ParseConfig(config)
			if err != nil {
				return err
			}
			return CheckEndpoint(c, env.AllowPrivateNetwork)
		},
		NewSource: func(config map[string]any, env connectors.Env) (connectors.Source, error) {
			c, err := ParseConfig(config)
			if err != nil {
				return nil, err
			}
			c.AllowPrivateNetwork = env.AllowPrivateNetwork
			return NewSource(c)
		},
		NewDestination: func(config map[string]any, env connectors.Env) (connectors.Destination, error) {
			c, err := ParseConfig(config)
			if err != nil {
				return nil, err
			}
			c.AllowPrivateNetwork = env.AllowPrivateNetwork
			return NewDestination(c)
		},
	})
}

var (
	_ connectors.Source      = (*Source)(nil)
	_ connectors.Destination = (*Destination)(nil)
)

// client is what the source and destination share: one container and a blob-name prefix.
type client struct {
	cfg       Config
	protocol  string // "az" or "abfs"
	container string
	// prefix is the blob-name part of remote_url as configured (may name a single blob).
	prefix string
	// dir is prefix as a "directory": "" for the container root, else ending in "/".
	dir string
	cc  *container.Client
}

func newClient(cfg Config) (*client, error) {
	protocol, cont, prefix, account, err := splitRemoteURL(cfg.RemoteURL)
	if err != nil {
		return nil, fmt.Errorf("azure: %w", err)
	}
	if cfg.AccountName == "" {
		cfg.AccountName = account
	}
	opts := &service.ClientOptions{ClientOptions: policy.ClientOptions{
		// Fail fast: a connection check or a job should not sit in back-off for a minute.
		Retry: policy.RetryOptions{MaxRetries: 2, RetryDelay: 200 * time.Millisecond, MaxRetryDelay: 2 * time.Second},
		// Every connection is checked on its resolved address; redirects to another origin
		// carry no credentials.
		Transport: netguard.NewClient(netguard.Options{AllowPrivate: cfg.AllowPrivateNetwork}),
	}}
	if err := CheckEndpoint(cfg, cfg.AllowPrivateNetwork); err != nil {
		return nil, err
	}
	if cfg.AccountName != "" && !accountNameRe.MatchString(cfg.AccountName) {
		return nil, errors.New("azure: account_name must be 3 to 24 lowercase letters and digits")
	}
	var sc *service.Client
	serviceURL := cfg.ServiceURL
	if serviceURL == "" && cfg.AccountName != "" {
		serviceURL = "https://" + cfg.AccountName + ".blob.core.windows.net/"
	}
	switch {
	case cfg.ConnectionString != "":
		// The connection string overrides every other field (reference behaviour).
		sc, err = service.NewClientFromConnectionString(cfg.ConnectionString, opts)
		if err != nil {
			// The SDK's parse errors can quote the string; never echo a secret.
			return nil, errors.New("azure: connection_string is not a valid Azure Storage connection string")
		}
	case serviceURL == "":
		return nil, errors.New("azure: either connection_string or account_name must be set")
	case cfg.AccountKey != "":
		// An account key wins over a SAS token, as in the storage SDKs.
		cred, kerr := service.NewSharedKeyCredential(accountFor(cfg, serviceURL), cfg.AccountKey)
		if kerr != nil {
			return nil, errors.New("azure: account_key is not a valid base64 account key")
		}
		sc, err = service.NewClientWithSharedKeyCredential(serviceURL, cred, opts)
	case cfg.SASToken != "":
		u, perr := url.Parse(serviceURL)
		if perr != nil {
			return nil, fmt.Errorf("azure: service URL: %w", perr)
		}
		u.RawQuery = strings.TrimPrefix(strings.TrimSpace(cfg.SASToken), "?")
		sc, err = service.NewClientWithNoCredential(u.String(), opts)
	default:
		sc, err = service.NewClientWithNoCredential(serviceURL, opts)
	}
	if err != nil {
		return nil, fmt.Errorf("azure: create client: %w", err)
	}
	dir := prefix
	if dir != "" && !strings.HasSuffix(dir, "/") {
		dir += "/"
	}
	return &client{cfg: cfg, protocol: protocol, container: cont, prefix: prefix, dir: dir, cc: sc.NewContainerClient(cont)}, nil
}

// accountFor is the account name used to sign shared-key requests: the configured one, else the
// first path segment of an emulator-style URL (http://127.0.0.1:10000/devstoreaccount1).
func accountFor(cfg Config, serviceURL string) string {
	if cfg.AccountName != "" {
		return cfg.AccountName
	}
	if u, err := url.Parse(serviceURL); err == nil {
		if seg, _, _ := strings.Cut(strings.TrimPrefix(u.Path, "/"), "/"); seg != "" {
			return seg
		}
		host, _, _ := strings.Cut(u.Hostname(), ".")
		return host
	}
	return ""
}

// describe turns an SDK error into a message naming the container and the service's status and
// error code. The SDK's own messages are avoided on purpose: they can carry request URLs.
func (c *client) describe(op string, err error) error {
	if errors.Is(err, context.Canceled) || errors.Is(err, context.DeadlineExceeded) {
		return fmt.Errorf("azure: %s in container %q: %w", op, c.container, err)
	}
	var re *azcore.ResponseError
	if errors.As(err, &re) {
		hint := ""
		switch {
		case re.StatusCode == http.StatusForbidden || re.ErrorCode == "AuthenticationFailed" || re.ErrorCode == "AuthorizationFailure" || re.StatusCode == http.StatusUnauthorized:
			hint = " (check account_key, sas_token or connection_string, and the SAS permissions)"
		case re.ErrorCode == "ContainerNotFound":
			hint = " (the container does not exist)"
		case re.StatusCode == http.StatusNotFound && re.ErrorCode == "ResourceNotFound":
			hint = " (the container does not exist or does not allow anonymous access)"
		}
		code := re.ErrorCode
		if code == "" {
			code = http.StatusText(re.StatusCode)
		}
		return &Error{Op: op, Container: c.container, StatusCode: re.StatusCode, Code: code, hint: hint}
	}
	var ue *url.Error
	if errors.As(err, &ue) {
		// url.Error quotes the URL, which may hold a SAS signature: keep only the cause.
		return fmt.Errorf("azure: %s in container %q: cannot reach the storage endpoint: %v", op, c.container, ue.Err)
	}
	return fmt.Errorf("azure: %s in container %q: %v", op, c.container, redact(err.Error(), c.cfg))
}

// redact removes configured secrets from a message, as a last line of defence.
func redact(msg string, cfg Config) string {
	for _, s := range []string{cfg.AccountKey, cfg.SASToken, cfg.ConnectionString} {
		s = strings.TrimPrefix(strings.TrimSpace(s), "?")
		if len(s) >= 4 {
			msg = strings.ReplaceAll(msg, s, "**********")
		}
	}
	if i := strings.Index(msg, "sig="); i >= 0 {
		end := strings.IndexAny(msg[i:], "& \n\"'")
		if end < 0 {
			end = len(msg) - i
		}
		msg = msg[:i] + "sig=REDACTED" + msg[i+end:]
	}
	return msg
}

// Error is a storage service failure for one operation on the configured container.
type Error struct {
	Op         string
	Container  string
	StatusCode int
	Code       string
	hint       string
}

func (e *Error) Error() string {
	return fmt.Sprintf("azure: %s in container %q: %d %s%s", e.Op, e.Container, e.StatusCode, e.Code, e.hint)
}

// Source lists and opens the blobs under the configured remote URL.
type Source struct{ c *client }

// NewSource returns a source for cfg. It does not contact the service.
func NewSource(cfg Config) (*Source, error) {
	c, err := newClient(cfg)
	if err != nil {
		return nil, err
	}
	return &Source{c: c}, nil
}

// List yields every non-empty blob under the prefix: all of them when Recursive, else only the
// prefix's immediate children. A remote URL naming one blob yields that blob.
func (s *Source) List(ctx context.Context, yield func(connectors.Document) error) error {
	c := s.c
	processed := epochString(time.Now())
	if c.prefix != "" && !strings.HasSuffix(c.prefix, "/") {
		// fsspec lists a path that is a file as that file alone.
		props, err := c.cc.NewBlobClient(c.prefix).GetProperties(ctx, nil)
		if err == nil {
			if props.ContentLength != nil && *props.ContentLength > 0 {
				return yield(c.document(c.prefix, path.Base(c.prefix), blobInfo{
					etag: props.ETag, created: props.CreationTime, modified: props.LastModified, size: *props.ContentLength,
				}, processed))
			}
			return nil
		}
		if ctx.Err() != nil {
			return c.describe("list", ctx.Err())
		}
	}
	emit := func(items []*container.BlobItem) error {
		for _, it := range items {
			if it == nil || it.Name == nil || it.Properties == nil || it.Properties.ContentLength == nil || *it.Properties.ContentLength <= 0 {
				continue // zero-byte blobs and directory markers carry nothing to partition
			}
			name := *it.Name
			info := blobInfo{etag: it.Properties.ETag, created: it.Properties.CreationTime, modified: it.Properties.LastModified, size: *it.Properties.ContentLength}
			if err := yield(c.document(name, strings.TrimPrefix(name, c.dir), info, processed)); err != nil {
				return err
			}
		}
		return nil
	}
	if c.cfg.Recursive {
		pager := c.cc.NewListBlobsFlatPager(&container.ListBlobsFlatOptions{Prefix: nonEmpty(c.dir)})
		for pager.More() {
			page, err := pager.NextPage(ctx)
			if err != nil {
				return c.describe("list blobs", err)
			}
			if page.Segment == nil {
				continue
			}
			if err := emit(page.Segment.BlobItems); err != nil {
				return err
			}
		}
		return nil
	}
	pager := c.cc.NewListBlobsHierarchyPager("/", &container.ListBlobsHierarchyOptions{Prefix: nonEmpty(c.dir)})
	for pager.More() {
		page, err := pager.NextPage(ctx)
		if err != nil {
			return c.describe("list blobs", err)
		}
		if page.Segment == nil {
			continue
		}
		if err := emit(page.Segment.BlobItems); err != nil {
			return err
		}
	}
	return nil
}

type blobInfo struct {
	etag              *azcore.ETag
	created, modified *time.Time
	size              int64
}

func (c *client) document(name, rel string, info blobInfo, processed string) connectors.Document {
	version := ""
	if info.etag != nil {
		version = strings.Trim(string(*info.etag), `"`)
	}
	ds := map[string]any{
		"url":     c.protocol + "://" + c.container + "/" + name,
		"version": nullable(version),
		"record_locator": map[string]any{
			"protocol":         c.protocol,
			"remote_file_path": c.cfg.RemoteURL,
		},
		"date_created":     timeString(info.created),
		"date_modified":    timeString(info.modified),
		"date_processed":   processed,
		"permissions_data": nil,
		"filesize_bytes":   info.size,
	}
	return connectors.Document{
		ID:         rel,
		Filename:   path.Base(name),
		Version:    version,
		Size:       info.size,
		DataSource: ds,
	}
}

// blobName recovers the blob a document came from: from its data_source url when present (it
// is exactly protocol://container/name), else from its ID relative to the configured prefix.
func (c *client) blobName(doc connectors.Document) (string, error) {
	if u, ok := doc.DataSource["url"].(string); ok {
		if rest, ok := strings.CutPrefix(u, c.protocol+"://"+c.container+"/"); ok && rest != "" {
			return rest, nil
		}
	}
	id := strings.TrimLeft(doc.ID, "/")
	if id == "" {
		return "", fmt.Errorf("azure: document has no ID")
	}
	if c.prefix != "" && !strings.HasSuffix(c.prefix, "/") && id == path.Base(c.prefix) {
		return c.prefix, nil
	}
	return c.dir + id, nil
}

// Open downloads a blob listed by List.
func (s *Source) Open(ctx context.Context, doc connectors.Document) (io.ReadCloser, error) {
	name, err := s.c.blobName(doc)
	if err != nil {
		return nil, err
	}
	resp, err := s.c.cc.NewBlobClient(name).DownloadStream(ctx, nil)
	if err != nil {
		return nil, s.c.describe(fmt.Sprintf("download %q", name), err)
	}
	return resp.Body, nil
}

// Check lists at most one blob under the prefix, then reads the first one's properties, which
// proves the credentials can both list and read (the reference precheck does the same).
func (s *Source) Check(ctx context.Context) error {
	c := s.c
	pager := c.cc.NewListBlobsFlatPager(&container.ListBlobsFlatOptions{Prefix: nonEmpty(c.dir), MaxResults: to.Ptr[int32](1)})
	page, err := pager.NextPage(ctx)
	if err != nil {
		return c.describe("list blobs", err)
	}
	if page.Segment != nil && len(page.Segment.BlobItems) > 0 && page.Segment.BlobItems[0].Name != nil {
		name := *page.Segment.BlobItems[0].Name
		if _, err := c.cc.NewBlobClient(name).GetProperties(ctx, nil); err != nil {
			return c.describe(fmt.Sprintf("read properties of %q", name), err)
		}
	}
	return nil
}

// Destination writes each document's elements as <prefix>/<document ID>.json.
type Destination struct{ c *client }

// NewDestination returns a destination for cfg. It does not contact the service.
func NewDestination(cfg Config) (*Destination, error) {
	c, err := newClient(cfg)
	if err != nil {
		return nil, err
	}
	return &Destination{c: c}, nil
}

// BlobName is the name of the blob Write stores doc's elements in: the document's path relative
// to its source (its ID) under the configured prefix, with ".json" appended, as the reference's
// uploader does with the relative path.
func (d *Destination) BlobName(doc connectors.Document) string {
	rel := doc.ID
	if rel == "" {
		rel = doc.Filename
	}
	// Dot segments are dropped, not resolved: a document can neither escape the prefix nor
	// name another document's blob.
	rel = connectors.RelPath(strings.ReplaceAll(rel, "\\", "/"))
	if rel == "" {
		rel = "document"
	}
	return d.c.dir + rel + ".json"
}

// Write uploads the elements as one JSON array (the partition API's shape), replacing any
// earlier output for the same document.
func (d *Destination) Write(ctx context.Context, doc connectors.Document, elements []element.Element) error {
	data := element.MarshalList(elements)
	name := d.BlobName(doc)
	_, err := d.c.cc.NewBlockBlobClient(name).UploadBuffer(ctx, data, &blockblob.UploadBufferOptions{
		HTTPHeaders: &blob.HTTPHeaders{BlobContentType: to.Ptr("application/json")},
	})
	if err != nil {
		return d.c.describe(fmt.Sprintf("upload %q", name), err)
	}
	return nil
}

// Check writes an empty "_empty" blob under the prefix, as the reference precheck does: only a
// write proves a destination is writable, and a zero-byte blob is skipped by any later listing.
func (d *Destination) Check(ctx context.Context) error {
	name := d.c.dir + "_empty"
	_, err := d.c.cc.NewBlockBlobClient(name).Upload(ctx, nopSeekCloser{bytes.NewReader(nil)}, nil)
	if err != nil {
		return d.c.describe(fmt.Sprintf("write %q", name), err)
	}
	return nil
}

type nopSeekCloser struct{ *bytes.Reader }

func (nopSeekCloser) Close() error { return nil }

func nonEmpty(s string) *string {
	if s == "" {
		return nil
	}
	return &s
}

func nullable(s string) any {
	if s == "" {
		return nil
	}
	return s
}

func timeString(t *time.Time) any {
	if t == nil || t.IsZero() {
		return nil
	}
	return epochString(*t)
}

// epochString formats a time as Python's str(float) of a Unix timestamp ("1678442150.0").
func epochString(t time.Time) string {
	f := float64(t.Unix()) + float64(t.Nanosecond())/1e9
	s := strconv.FormatFloat(f, 'f', -1, 64)
	if !strings.Contains(s, ".") {
		s += ".0"
	}
	return s
}
