package azure

import (
	"errors"
	"fmt"
	"regexp"
	"strings"

	"github.com/quarrydocs/quarry/api/schema"
	"github.com/quarrydocs/quarry/internal/netguard"
)

// remoteURLPattern is the platform schema's rule for remote_url (az:// or abfs://).
const remoteURLPattern = `^(az|abfs)://`

var remoteURLRe = regexp.MustCompile(remoteURLPattern)

// portalURLRe is a container's URL as the Azure portal shows it:
// https://<account>.blob.core.windows.net/<container>[/<prefix>].
var portalURLRe = regexp.MustCompile(`^https://([a-zA-Z0-9]{3,24})\.blob\.core\.windows\.net/([^/?#]+)/?([^?#]*)$`)

// Config is a parsed Azure connector config (platform.md §1.9).
type Config struct {
	RemoteURL        string
	AccountName      string
	AccountKey       string
	ConnectionString string
	SASToken         string
	// Recursive walks every blob under the prefix; false lists only its immediate children.
	Recursive bool

	// ServiceURL overrides the blob endpoint derived from AccountName
	// (https://<account>.blob.core.windows.net). It is not part of the API config: Go callers and
	// tests use it to point account-key, SAS or anonymous access at an emulator or a sovereign
	// cloud. Connection strings carry their own endpoint.
	ServiceURL string
	// AllowPrivateNetwork lets the client reach loopback, private and link-local addresses (an
	// emulator such as Azurite, an on-premises endpoint). Set from the operator's policy
	// (connectors.Env), never from the API config.
	AllowPrivateNetwork bool
}

// accountNamePattern is Azure's rule for storage account names. Checking it matters beyond
// tidiness: the name becomes the endpoint's host, so "127.0.0.1:9911/x?" would otherwise make the
// client connect wherever the caller likes.
const accountNamePattern = `^[a-z0-9]{3,24}$`

var accountNameRe = regexp.MustCompile(accountNamePattern)

// Secrets are the config keys stored encrypted and returned masked.
var secretKeys = []string{"account_key", "sas_token", "connection_string"}

// Defaults returns config with the defaults the API echoes back filled in: every key present,
// unset optional strings as null, recursive true (the platform schema's default).
func Defaults(config map[string]any) map[string]any {
	out := make(map[string]any, len(config)+6)
	for k, v := range config {
		out[k] = v
	}
	for _, k := range []string{"account_name", "account_key", "connection_string", "sas_token"} {
		if _, ok := out[k]; !ok {
			out[k] = nil
		}
	}
	if v, ok := out["recursive"]; !ok || v == nil {
		out["recursive"] = true
	} else if b, ok := schema.JSONBool(v, schema.Pydantic); ok {
		out["recursive"] = b
	}
	return out
}

// Validate checks an Azure config the way the platform schema and the connector do, reporting
// every problem at once with locations ["body", "config", key].
func Validate(config map[string]any) error {
	_, err := ParseConfig(config)
	return err
}

// ParseConfig validates config and returns it typed.
func ParseConfig(config map[string]any) (Config, error) {
	var c Config
	var errs []schema.FieldError
	add := func(key, typ, msg string, input any, ctx map[string]any) {
		errs = append(errs, schema.FieldError{Type: typ, Loc: []string{"body", "config", key}, Msg: msg, Input: input, Ctx: ctx})
	}
	str := func(key string, dst *string, required bool) {
		v, ok := config[key]
		if !ok || v == nil {
			if required {
				add(key, "missing", "Field required", config, nil)
			}
			return
		}
		s, ok := v.(string)
		if !ok {
			add(key, "string_type", "Input should be a valid string", v, nil)
			return
		}
		*dst = s
	}
	if config == nil {
		config = map[string]any{}
	}
	str("remote_url", &c.RemoteURL, true)
	str("account_name", &c.AccountName, false)
	str("account_key", &c.AccountKey, false)
	str("connection_string", &c.ConnectionString, false)
	str("sas_token", &c.SASToken, false)
	c.Recursive = true
	if v, ok := config["recursive"]; ok && v != nil {
		if b, ok := schema.JSONBool(v, schema.Pydantic); ok {
			c.Recursive = b
		} else {
			add("recursive", "bool_type", "Input should be a valid boolean", v, nil)
		}
	}
	if v, ok := config["remote_url"].(string); ok {
		if m := portalURLRe.FindStringSubmatch(v); m != nil {
			// The address the Azure portal shows for a container is taken as its az:// form.
			v = "az://" + m[2] + "/" + m[3]
			c.RemoteURL = v
			if c.AccountName == "" {
				c.AccountName = strings.ToLower(m[1])
			}
		}
		switch {
		case !remoteURLRe.MatchString(v):
			add("remote_url", "string_pattern_mismatch", "String should match pattern '"+remoteURLPattern+"'", v, map[string]any{"pattern": remoteURLPattern})
		case strings.Count(v, "://") > 1:
			add("remote_url", "value_error", "Value error, remote_url must contain '://' only once", v, nil)
		default:
			if _, _, _, account, err := splitRemoteURL(v); err != nil {
				add("remote_url", "value_error", "Value error, "+err.Error(), v, nil)
			} else if _, host, ok := strings.Cut(strings.SplitN(strings.SplitN(v, "://", 2)[1], "/", 2)[0], "@"); ok && !abfsHostRe.MatchString(host) {
				add("remote_url", "value_error", "Value error, the host after '@' must be <account>.dfs.<domain> (an account of 3 to 24 lowercase letters and digits, no port)", v, nil)
			} else if c.AccountName == "" {
				c.AccountName = account
			}
		}
	}
	// The connector needs somewhere to connect to: a connection string carries the endpoint, an
	// account name implies one (anonymous access when no key or SAS is given).
	if v, ok := config["account_name"].(string); ok && !accountNameRe.MatchString(v) {
		add("account_name", "string_pattern_mismatch", "String should match pattern '"+accountNamePattern+"' (3 to 24 lowercase letters and digits)", v, map[string]any{"pattern": accountNamePattern})
	} else if !ok && c.AccountName != "" && !accountNameRe.MatchString(c.AccountName) {
		add("remote_url", "value_error", "Value error, the account in remote_url must be 3 to 24 lowercase letters and digits", config["remote_url"], nil)
	}
	if c.ConnectionString != "" {
		if _, err := connStringEndpoint(c.ConnectionString, true); err != nil {
			// The input is a secret: it is never echoed.
			add("connection_string", "value_error", "Value error, "+err.Error(), nil, nil)
		}
	}
	if c.ConnectionString == "" && c.AccountName == "" && c.ServiceURL == "" && !hasKeyError(errs, "account_name", "connection_string") {
		add("account_name", "value_error", "Value error, either connection_string or account_name must be set", nil, nil)
	}
	if len(errs) > 0 {
		return Config{}, &schema.ValidationError{Errors: errs}
	}
	return c, nil
}

// CheckEndpoint refuses a configuration whose endpoint is a non-public address (unless
// allowPrivate): the early answer (422) to what the guarded transport refuses at connect time.
func CheckEndpoint(c Config, allowPrivate bool) error {
	if c.ConnectionString != "" {
		if _, err := connStringEndpoint(c.ConnectionString, allowPrivate); err != nil {
			return &schema.ValidationError{Errors: []schema.FieldError{{Type: "value_error", Loc: []string{"body", "config", "connection_string"}, Msg: "Value error, " + err.Error()}}}
		}
		return nil
	}
	if c.ServiceURL != "" {
		if err := netguard.CheckURL(c.ServiceURL, allowPrivate); err != nil {
			return fmt.Errorf("azure: service URL: %w", err)
		}
	}
	return nil
}

// connStringEndpoint returns the blob endpoint a connection string leads to, as the storage SDK
// derives it (BlobEndpoint, else protocol://AccountName.blob.EndpointSuffix), refusing account
// names and suffixes that would smuggle in another host, and non-public endpoints unless allowed.
func connStringEndpoint(cs string, allowPrivate bool) (string, error) {
	kv := map[string]string{}
	for _, part := range strings.Split(cs, ";") {
		if strings.TrimSpace(part) == "" {
			continue
		}
		k, v, ok := strings.Cut(part, "=")
		if !ok {
			return "", errors.New("connection_string is not a list of key=value pairs")
		}
		kv[strings.ToLower(strings.TrimSpace(k))] = strings.TrimSpace(v)
	}
	if strings.EqualFold(kv["usedevelopmentstorage"], "true") {
		// The emulator shortcut: the SDK connects to Azurite on the loopback interface.
		ep := "http://127.0.0.1:10000/devstoreaccount1"
		if err := netguard.CheckURL(ep, allowPrivate); err != nil {
			return "", fmt.Errorf("connection_string UseDevelopmentStorage: %w", err)
		}
		return ep, nil
	}
	if ep := kv["blobendpoint"]; ep != "" {
		if err := netguard.CheckURL(ep, allowPrivate); err != nil {
			return "", fmt.Errorf("connection_string BlobEndpoint: %w", err)
		}
		return ep, nil
	}
	account := kv["accountname"]
	if account == "" {
		return "", errors.New("connection_string names neither BlobEndpoint nor AccountName")
	}
	if !accountNameRe.MatchString(account) {
		return "", errors.New("connection_string AccountName must be 3 to 24 lowercase letters and digits")
	}
	proto := strings.ToLower(kv["defaultendpointsprotocol"])
	if proto == "" {
		proto = "https"
	}
	if proto != "http" && proto != "https" {
		return "", errors.New("connection_string DefaultEndpointsProtocol must be http or https")
	}
	suffix := kv["endpointsuffix"]
	if suffix == "" {
		suffix = "core.windows.net"
	}
	if !hostSuffixRe.MatchString(suffix) {
		return "", errors.New("connection_string EndpointSuffix must be a DNS name")
	}
	ep := proto + "://" + account + ".blob." + suffix
	if err := netguard.CheckURL(ep, allowPrivate); err != nil {
		return "", fmt.Errorf("connection_string endpoint: %w", err)
	}
	return ep, nil
}

// abfsHostRe is the host of abfs://container@host/...: an account name, then a DNS name.
var abfsHostRe = regexp.MustCompile(`^[a-z0-9]{3,24}\.[a-z]([a-z0-9-]*[a-z0-9])?(\.[a-z0-9]([a-z0-9-]*[a-z0-9])?)+$`)

var hostSuffixRe = regexp.MustCompile(`^[A-Za-z0-9]([A-Za-z0-9-]*[A-Za-z0-9])?(\.[A-Za-z0-9]([A-Za-z0-9-]*[A-Za-z0-9])?)+$`)

func hasKeyError(errs []schema.FieldError, keys ...string) bool {
	for _, e := range errs {
		for _, k := range keys {
			if e.Loc[len(e.Loc)-1] == k {
				return true
			}
		}
	}
	return false
}

// splitRemoteURL splits az://container/prefix into its protocol, container and blob-name prefix
// (no leading slash; a trailing slash is kept as given). The ADLS form
// abfs://container@account.dfs.core.windows.net/prefix also names the account.
func splitRemoteURL(u string) (protocol, container, prefix, account string, err error) {
	protocol, rest, ok := strings.Cut(u, "://")
	if !ok || strings.Contains(rest, "://") {
		return "", "", "", "", fmt.Errorf("remote_url %q must look like az://container/path", u)
	}
	rest = strings.TrimLeft(rest, "/")
	container, prefix, _ = strings.Cut(rest, "/")
	if c, host, ok := strings.Cut(container, "@"); ok {
		container = c
		account, _, _ = strings.Cut(host, ".")
	}
	if container == "" {
		return "", "", "", "", fmt.Errorf("remote_url %q names no container", u)
	}
	return protocol, container, prefix, account, nil
}
