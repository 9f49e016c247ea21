package contract

import (
	"fmt"
	"reflect"
	"slices"
	"strconv"
)

// KeysOf returns the options held by the struct v points to, as keys. Fields tagged
// `key:"name"` give one key each, with the canonical value of their type: a string, bool or
// int always; a *float64 when set; a []string when not nil (one value per item). The field
// tagged `key:",extra"` holds the keys without a field of their own and gives them as they are,
// without ever shadowing a tagged key: a map[string][]string (such as Options, the engine's)
// with every value, or a map[string]string (protocol 1's frozen options_json) with one. Other
// fields stay behind. It is the one conversion from a typed options struct to keys: the
// engine's Options and protocol 1's frozen options_json both declare their keys in tags
// instead of in code.
func KeysOf(v any) Options {
	rv := reflect.ValueOf(v)
	if rv.Kind() == reflect.Pointer {
		rv = rv.Elem()
	}
	k := Options{}
	var tagged []func()
	var lists []reflect.Value
	for i := 0; i < rv.NumField(); i++ {
		name, extra := fieldKey(rv.Type().Field(i))
		f := rv.Field(i)
		switch {
		case extra && isListMap(f.Type()):
			lists = append(lists, f)
		case extra:
			for _, e := range f.MapKeys() {
				k[e.String()] = []string{f.MapIndex(e).String()}
			}
		case name != "":
			tagged = append(tagged, func() {
				if vs, ok := valuesOf(f); ok {
					k[name] = vs
				}
			})
		}
	}
	for _, f := range lists {
		for _, e := range f.MapKeys() {
			k[e.String()] = slices.Clone(f.MapIndex(e).Convert(reflect.TypeFor[[]string]()).Interface().([]string))
		}
	}
	for _, set := range tagged {
		set()
	}
	return k
}

// isListMap reports whether t is map[string][]string, the type of an extra field holding lists.
func isListMap(t reflect.Type) bool {
	return t.Kind() == reflect.Map && t.Elem().Kind() == reflect.Slice
}

// SetKeys sets the tagged fields of the struct v points to from k (see KeysOf): a value that
// does not parse as the field's type leaves the field as it was; a list key sets the field even
// to no items. Keys without a field go to the field tagged `key:",extra"`, when there is one:
// with every value (even none) to a map[string][]string, with their last value to a
// map[string]string (which cannot hold a key without values: it is left out).
func SetKeys(v any, k Options) {
	rv := reflect.ValueOf(v).Elem()
	fields := map[string]reflect.Value{}
	var extra reflect.Value
	for i := 0; i < rv.NumField(); i++ {
		name, isExtra := fieldKey(rv.Type().Field(i))
		switch {
		case isExtra:
			extra = rv.Field(i)
		case name != "":
			fields[name] = rv.Field(i)
		}
	}
	for _, name := range k.Keys() {
		vs := k[name]
		if f, ok := fields[name]; ok {
			setValues(f, vs)
			continue
		}
		var val reflect.Value
		switch {
		case !extra.IsValid():
			continue
		case isListMap(extra.Type()):
			val = reflect.ValueOf(slices.Clone(vs)).Convert(extra.Type().Elem())
		case len(vs) > 0:
			val = reflect.ValueOf(vs[len(vs)-1])
		default:
			continue
		}
		if extra.IsNil() {
			extra.Set(reflect.MakeMap(extra.Type()))
		}
		extra.SetMapIndex(reflect.ValueOf(name), val)
	}
}

// SetKey sets the field of the struct v points to tagged with key from a Go value of the field's
// kind (bool, int, float64, string or []string). It reports whether such a field took x.
func SetKey(v any, key string, x any) bool {
	rv := reflect.ValueOf(v).Elem()
	for i := 0; i < rv.NumField(); i++ {
		if name, _ := fieldKey(rv.Type().Field(i)); name != key {
			continue
		}
		f := rv.Field(i)
		xv := reflect.ValueOf(x)
		switch {
		case f.Kind() == reflect.Pointer && xv.Kind() == reflect.Float64:
			p := reflect.New(f.Type().Elem())
			p.Elem().SetFloat(xv.Float())
			f.Set(p)
		case xv.IsValid() && xv.Type() == f.Type():
			f.Set(xv)
		default:
			return false
		}
		return true
	}
	return false
}

func fieldKey(sf reflect.StructField) (name string, extra bool) {
	tag, ok := sf.Tag.Lookup("key")
	if !ok || !sf.IsExported() {
		return "", false
	}
	if tag == ",extra" {
		return "", true
	}
	return tag, false
}

func valuesOf(f reflect.Value) ([]string, bool) {
	switch f.Kind() {
	case reflect.String:
		return []string{f.String()}, true
	case reflect.Bool:
		return []string{strconv.FormatBool(f.Bool())}, true
	case reflect.Int:
		return []string{strconv.FormatInt(f.Int(), 10)}, true
	case reflect.Pointer:
		if f.IsNil() {
			return nil, false
		}
		return []string{strconv.FormatFloat(f.Elem().Float(), 'g', -1, 64)}, true
	case reflect.Slice:
		if f.IsNil() {
			return nil, false
		}
		return slices.Clone(f.Interface().([]string)), true
	}
	panic(fmt.Sprintf("contract: a key field cannot be of kind %s", f.Kind()))
}

func setValues(f reflect.Value, vs []string) {
	if f.Kind() == reflect.Slice {
		f.Set(reflect.ValueOf(slices.Clone(vs)))
		return
	}
	if len(vs) == 0 {
		return
	}
	v := vs[len(vs)-1]
	switch f.Kind() {
	case reflect.String:
		f.SetString(v)
	case reflect.Bool:
		if b, err := strconv.ParseBool(v); err == nil {
			f.SetBool(b)
		}
	case reflect.Int:
		if n, err := strconv.Atoi(v); err == nil {
			f.SetInt(int64(n))
		}
	case reflect.Pointer:
		if x, err := strconv.ParseFloat(v, 64); err == nil {
			p := reflect.New(f.Type().Elem())
			p.Elem().SetFloat(x)
			f.Set(p)
		}
	}
}
