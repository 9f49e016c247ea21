package confluence

import (
	"context"
	"encoding/json"
	"errors"
	"fmt"
	"net/url"
	"sort"
)

// maxMetadataPermissions is the reference's cap on permissions gathered per page: space
// assignments stop being added once this many entries were counted.
const maxMetadataPermissions = 250

// errPermissions marks input the reference algorithm fails on; the page then gets no
// permissions_data at all (as the reference does when any step throws).
var errPermissions = errors.New("confluence: permissions not computable")

// spacePermissions lists a space's permission assignments through the v2 API (Cloud only),
// following every page of results. Data Center has no such endpoint: the error means "no
// permissions", not a failed run.
func (c *client) spacePermissions(ctx context.Context, spaceID string) ([]any, error) {
	var out []any
	ref := "api/v2/spaces/" + url.PathEscape(spaceID) + "/permissions?limit=250"
	for pages := 0; ref != "" && pages < 1000; pages++ {
		var resp struct {
			Results []any `json:"results"`
			Links   struct {
				Next string `json:"next"`
			} `json:"_links"`
		}
		if err := c.getJSON(ctx, ref, fmt.Sprintf("permissions of space %s", spaceID), &resp); err != nil {
			return nil, err
		}
		out = append(out, resp.Results...)
		ref = c.nextRef(resp.Links.Next, true)
	}
	return out, nil
}

// pageRestrictions reads a page's read/update restrictions (v1, the same on Cloud and DC).
func (c *client) pageRestrictions(ctx context.Context, pageID string) (map[string]any, error) {
	var out map[string]any
	err := c.getJSON(ctx, "rest/api/content/"+url.PathEscape(pageID)+"/restriction/byOperation", "restrictions of page "+pageID, &out)
	return out, err
}

// bucket is one operation's principals; ids are JSON strings or numbers.
type bucket struct{ users, groups map[any]bool }

// computePermissions merges page restrictions and space assignments into the reference's
// permissions_data shape (platform.md §2.8):
//
//	[{"read": {"users": [...], "groups": [...]}}, {"update": {...}}, {"delete": {...}}]
//
// It reproduces the reference's semantics, including where it gives up: a principal type
// other than user or group, an operation other than read/update/delete among the
// restrictions, a user without accountId (Data Center's user objects) — each yields
// errPermissions, so the page carries no permissions.
func computePermissions(restrictions map[string]any, space []any) (any, error) {
	roles := map[string]*bucket{}
	for _, op := range []string{"read", "update", "delete"} {
		roles[op] = &bucket{users: map[any]bool{}, groups: map[any]bool{}}
	}
	set := func(op, entityType string) (map[any]bool, error) {
		b := roles[op]
		if b == nil {
			return nil, errPermissions
		}
		switch entityType {
		case "user":
			return b.users, nil
		case "group":
			return b.groups, nil
		}
		return nil, errPermissions
	}
	restricted := func(op string) bool {
		r, _ := dig(restrictions, op, "restrictions").(map[string]any)
		for _, et := range []string{"user", "group"} {
			if res, _ := dig(r, et, "results").([]any); len(res) > 0 {
				return true
			}
		}
		return false
	}
	viewRestricted, editRestricted := restricted("read"), restricted("update")

	total := 0
	for _, op := range sortedKeys(restrictions) {
		perms, ok := restrictions[op].(map[string]any)
		if !ok {
			return nil, errPermissions
		}
		r, _ := perms["restrictions"].(map[string]any)
		for _, entityType := range sortedKeys(r) {
			data, ok := r[entityType].(map[string]any)
			if !ok {
				return nil, errPermissions
			}
			results, ok := data["results"].([]any)
			if !ok {
				return nil, errPermissions
			}
			for _, e := range results {
				ent, ok := e.(map[string]any)
				if !ok {
					return nil, errPermissions
				}
				key := "id"
				if entityType == "user" {
					key = "accountId"
				}
				id, ok := idValue(ent[key])
				if !ok {
					return nil, errPermissions
				}
				s, err := set(op, entityType)
				if err != nil {
					return nil, err
				}
				s[id] = true
				total++
				// Edit implies view; not counted twice.
				if op == "update" {
					rs, err := set("read", entityType)
					if err != nil {
						return nil, err
					}
					rs[id] = true
				}
			}
		}
	}

	for _, a := range space {
		if total >= maxMetadataPermissions {
			break
		}
		assign, ok := a.(map[string]any)
		if !ok {
			return nil, errPermissions
		}
		opKey, ok1 := dig(assign, "operation", "key").(string)
		target, ok2 := dig(assign, "operation", "targetType").(string)
		ptype, ok3 := dig(assign, "principal", "type").(string)
		pid, ok4 := idValue(dig(assign, "principal", "id"))
		if !ok1 || !ok2 || !ok3 || !ok4 {
			return nil, errPermissions
		}
		switch {
		case target == "space" && opKey == "read" && !viewRestricted:
			s, err := set("read", ptype)
			if err != nil {
				return nil, err
			}
			s[pid] = true
			total++
		case target == "space" && opKey == "administer":
			if viewRestricted {
				continue
			}
			s, err := set("read", ptype)
			if err != nil {
				return nil, err
			}
			s[pid] = true
			total++
			if !editRestricted {
				u, err := set("update", ptype)
				if err != nil {
					return nil, err
				}
				u[pid] = true
			}
		case target == "page" && opKey == "delete":
			// Deleting pages is granted only to principals that can already read this one;
			// like the reference, this depends on the assignment order.
			r, err := set("read", ptype)
			if err != nil {
				return nil, err
			}
			if r[pid] {
				d, err := set("delete", ptype)
				if err != nil {
					return nil, err
				}
				d[pid] = true
				total++
			}
		}
	}

	out := make([]any, 0, 3)
	for _, op := range []string{"read", "update", "delete"} {
		users, err := sortedIDs(roles[op].users)
		if err != nil {
			return nil, err
		}
		groups, err := sortedIDs(roles[op].groups)
		if err != nil {
			return nil, err
		}
		out = append(out, map[string]any{op: map[string]any{"users": users, "groups": groups}})
	}
	return out, nil
}

// idValue normalises an id for set membership: strings stay strings, numbers become float64
// (Python compares 1 and 1.0 equal, so must we).
func idValue(v any) (any, bool) {
	switch x := v.(type) {
	case string:
		return x, true
	case json.Number:
		f, err := x.Float64()
		return f, err == nil
	case float64:
		return x, true
	}
	return nil, false
}

// sortedIDs sorts a set the way Python's sorted() does; mixing strings and numbers fails there
// too.
func sortedIDs(set map[any]bool) ([]any, error) {
	out := make([]any, 0, len(set))
	var strs []string
	var nums []float64
	for id := range set {
		switch x := id.(type) {
		case string:
			strs = append(strs, x)
		case float64:
			nums = append(nums, x)
		}
	}
	if len(strs) > 0 && len(nums) > 0 {
		return nil, errPermissions
	}
	sort.Strings(strs)
	sort.Float64s(nums)
	for _, s := range strs {
		out = append(out, s)
	}
	for _, n := range nums {
		out = append(out, jsonNumber(n))
	}
	return out, nil
}

// jsonNumber writes integral ids without a fraction, as the reference's ints are.
func jsonNumber(f float64) any {
	if f == float64(int64(f)) {
		return int64(f)
	}
	return f
}

func dig(v any, keys ...string) any {
	for _, k := range keys {
		m, ok := v.(map[string]any)
		if !ok {
			return nil
		}
		v = m[k]
	}
	return v
}

func sortedKeys[V any](m map[string]V) []string {
	out := make([]string, 0, len(m))
	for k := range m {
		out = append(out, k)
	}
	sort.Strings(out)
	return out
}
