package confluence

import (
	"context"
	"crypto/sha256"
	"encoding/hex"
	"encoding/json"
	"errors"
	"fmt"
	"net/url"
	"sort"
)

// maxMetadataPermissions is the reference's cap on permissions gathered per page: space
// assignments stop being added once this many entries were counted.
const maxMetadataPermissions = 250

// errPermissions marks restriction or permission data of an unexpected shape. Unlike the
// reference (which then leaves permissions_data null, read downstream as "no access control"),
// the page then fails as a file.
var errPermissions = errors.New("confluence: permissions not computable from the site's answer")

// spacePermissions lists a space's permission assignments through the v2 API (Cloud only),
// following every page of results (the reference reads only the first 25). Data Center has no
// such endpoint and is not asked.
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
	// Both subject lists are asked for explicitly (Cloud expands them by default, Data Center
	// only groups); restrictionSets refuses an answer without them.
	err := c.getJSON(ctx, "rest/api/content/"+url.PathEscape(pageID)+"/restriction/byOperation?expand=restrictions.user,restrictions.group", "restrictions of page "+pageID, &out)
	return out, err
}

// ancestorBatch reads one answer of v2 GET pages/{id}/ancestors (Cloud): ancestors "in
// top-to-bottom order", at most limit of them, "additional results … available by calling this
// endpoint with the ID of first ancestor in the response payload"
// (developer.atlassian.com/cloud/confluence/rest/v2/api-group-ancestors/).
func (c *client) ancestorBatch(ctx context.Context, pageID string) ([]string, error) {
	var resp struct {
		Results []struct {
			ID any `json:"id"`
		} `json:"results"`
	}
	if err := c.getJSON(ctx, "api/v2/pages/"+url.PathEscape(pageID)+"/ancestors?limit=250", "ancestors of page "+pageID, &resp); err != nil {
		return nil, err
	}
	out := make([]string, 0, len(resp.Results))
	for _, r := range resp.Results {
		id := idString(r.ID)
		if id == "" {
			return nil, fmt.Errorf("confluence: ancestors of page %s: an ancestor without id: %w", pageID, errPermissions)
		}
		out = append(out, id)
	}
	return out, nil
}

// principalSet is a set of users (account ids) and groups (group ids).
type principalSet struct{ users, groups map[any]bool }

func newPrincipalSet() principalSet {
	return principalSet{users: map[any]bool{}, groups: map[any]bool{}}
}

// of returns the map for a principal type; other types (roles, guests…) have none.
func (s principalSet) of(ptype string) map[any]bool {
	switch ptype {
	case "user":
		return s.users
	case "group":
		return s.groups
	}
	return nil
}

// intersect keeps the users that are in o's users and the groups that are in o's groups. Across
// two view restrictions this can only under-state who may read (a user allowed by name on one
// page and through a group on the other is dropped): group membership is not resolved, and
// when in doubt the index should expose less.
func (s principalSet) intersect(o principalSet) principalSet {
	out := newPrincipalSet()
	for id := range s.users {
		if o.users[id] {
			out.users[id] = true
		}
	}
	for id := range s.groups {
		if o.groups[id] {
			out.groups[id] = true
		}
	}
	return out
}

// restrictionSets reads one restriction/byOperation answer into the principals of each
// operation ("update" principals are also readers: a user who may edit a page may view it), and
// whether the page itself is view- and edit-restricted. Anything but the documented shape is
// errPermissions.
func restrictionSets(restrictions map[string]any) (ops map[string]principalSet, viewRestricted, editRestricted bool, count int, err error) {
	ops = map[string]principalSet{"read": newPrincipalSet(), "update": newPrincipalSet()}
	// Both operations must be there with both subject lists: an answer without them (an
	// operation left out, user or group restrictions left unexpanded under "_expandable") once
	// read as "no restriction", and the page went to every reader of the space.
	for op := range ops {
		perms, _ := restrictions[op].(map[string]any)
		r, _ := perms["restrictions"].(map[string]any)
		for _, subject := range []string{"user", "group"} {
			if _, ok := r[subject].(map[string]any); !ok {
				return nil, false, false, 0, errPermissions
			}
		}
	}
	for _, op := range sortedKeys(restrictions) {
		perms, ok := restrictions[op].(map[string]any)
		if !ok {
			return nil, false, false, 0, errPermissions
		}
		r, _ := perms["restrictions"].(map[string]any)
		for _, entityType := range sortedKeys(r) {
			data, ok := r[entityType].(map[string]any)
			if !ok {
				return nil, false, false, 0, errPermissions
			}
			results, ok := data["results"].([]any)
			if !ok {
				return nil, false, false, 0, errPermissions
			}
			for _, e := range results {
				ent, ok := e.(map[string]any)
				if !ok {
					return nil, false, false, 0, errPermissions
				}
				key := "id"
				if entityType == "user" {
					key = "accountId"
				}
				id, ok := idValue(ent[key])
				if !ok {
					return nil, false, false, 0, errPermissions
				}
				set, known := ops[op]
				if !known || set.of(entityType) == nil {
					return nil, false, false, 0, errPermissions
				}
				set.of(entityType)[id] = true
				count++
				switch op {
				case "read":
					viewRestricted = true
				case "update":
					editRestricted = true
					ops["read"].of(entityType)[id] = true
				}
			}
		}
	}
	return ops, viewRestricted, editRestricted, count, nil
}

// computePermissions merges the restrictions of a page and its ancestors with the space's
// permission assignments into the reference's permissions_data shape (platform.md §2.8):
//
//	[{"read": {"users": [...], "groups": [...]}}, {"update": {...}}, {"delete": {...}}]
//
// chain holds the restriction/byOperation answers of the ancestors top-down, then the page's.
// Confluence documents that view restrictions are inherited by every descendant while edit
// restrictions apply to the page alone ("Add or remove page restrictions", support.atlassian.com/
// confluence-cloud/docs/add-or-remove-page-restrictions/): so
//
//   - read is the page's own rule (its view restriction, or the space's readers and admins when
//     it has none, plus its editors), intersected with the view restriction of every restricted
//     ancestor; a page under a restricted ancestor gets none of the space's readers; when the
//     space grants view to named users only, read keeps only those of them;
//   - update is the page's edit restriction (or the space's admins when it has none), limited
//     to read; delete goes to holders of the space's delete-page permission found in read.
//
// Principals other than users and groups (roles) cannot be written in this shape and are left
// out, which can only under-state who may read. Malformed answers yield errPermissions; the
// caller must then not emit the page as if it had no access control.
func computePermissions(chain []map[string]any, space []any) (any, error) {
	if len(chain) == 0 {
		return nil, errPermissions
	}
	ops, viewRestricted, editRestricted, total, err := restrictionSets(chain[len(chain)-1])
	if err != nil {
		return nil, err
	}
	var inherited *principalSet
	for _, a := range chain[:len(chain)-1] {
		aops, aview, _, _, err := restrictionSets(a)
		if err != nil {
			return nil, err
		}
		if !aview {
			continue
		}
		v := aops["read"]
		if inherited != nil {
			v = inherited.intersect(v)
		}
		inherited = &v
	}
	read, update := ops["read"], ops["update"]
	restricted := viewRestricted || inherited != nil
	type grant struct {
		ptype string
		id    any
	}
	var deleters []grant
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
		if read.of(ptype) == nil {
			continue // a role or another principal type: not expressible, left out
		}
		switch {
		case target == "space" && opKey == "read" && !restricted:
			read.of(ptype)[pid] = true
			total++
		case target == "space" && opKey == "administer" && !restricted:
			read.of(ptype)[pid] = true
			total++
			if !editRestricted {
				update.of(ptype)[pid] = true
			}
		case target == "page" && opKey == "delete":
			deleters = append(deleters, grant{ptype, pid})
		}
	}
	if inherited != nil {
		if viewRestricted {
			read = read.intersect(*inherited)
		} else {
			read = inherited.intersect(*inherited)
		}
	}
	// Viewing needs the space's view permission too. Where the space grants it to named users
	// only (no group, no role), that can be checked: others named in restrictions are dropped,
	// and so are groups, whose members cannot be checked without resolving them.
	if spaceUsers, onlyUsers := spaceViewers(space); onlyUsers {
		read = read.intersect(principalSet{users: spaceUsers, groups: map[any]bool{}})
	}
	update = update.intersect(read)
	del := newPrincipalSet()
	for _, g := range deleters {
		if read.of(g.ptype)[g.id] {
			del.of(g.ptype)[g.id] = true
		}
	}

	out := make([]any, 0, 3)
	for _, b := range []struct {
		op  string
		set principalSet
	}{{"read", read}, {"update", update}, {"delete", del}} {
		users, err := sortedIDs(b.set.users)
		if err != nil {
			return nil, err
		}
		groups, err := sortedIDs(b.set.groups)
		if err != nil {
			return nil, err
		}
		out = append(out, map[string]any{b.op: map[string]any{"users": users, "groups": groups}})
	}
	return out, nil
}

// spaceViewers returns the users a space grants view (read or administer) to, and whether it
// grants view to users only. Assignments of an unexpected shape were refused by the caller.
func spaceViewers(space []any) (map[any]bool, bool) {
	users := map[any]bool{}
	for _, a := range space {
		opKey, _ := dig(a, "operation", "key").(string)
		target, _ := dig(a, "operation", "targetType").(string)
		if target != "space" || (opKey != "read" && opKey != "administer") {
			continue
		}
		if ptype, _ := dig(a, "principal", "type").(string); ptype != "user" {
			return nil, false
		}
		if id, ok := idValue(dig(a, "principal", "id")); ok {
			users[id] = true
		}
	}
	return users, true
}

// aclDigest is a short, stable digest of a page's permissions_data: stored in the document's
// version, it makes an incremental run re-emit a page whose permissions alone changed.
func aclDigest(perms any) (string, error) {
	b, err := json.Marshal(perms)
	if err != nil {
		return "", fmt.Errorf("confluence: permissions digest: %w", err)
	}
	sum := sha256.Sum256(b)
	return hex.EncodeToString(sum[:8]), nil
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
