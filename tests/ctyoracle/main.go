// Command ctyoracle answers msgpack encoding questions with go-cty itself, so ctl's codec can be
// compared with the real implementation. One JSON request per stdin line, one JSON answer per
// stdout line:
//
//	{"op":"encode","type":<type JSON>,"value":<value>}  ->  {"hex":"..."}
//	{"op":"decode","type":<type JSON>,"hex":"..."}      ->  {"value":<value>}
//	{"op":"json","type":<type JSON>,"value":<value>}    ->  {"json":"<cty JSON text>"}
//	{"op":"refined","type":<type JSON>,"refine":{...}}  ->  {"hex":"..."} (a refined unknown)
//	{"op":"convert","type":<type JSON>,"value":<value>} ->  {"value":<value>} or {"error":"...","path":[...]}
//
// For "convert" the value takes the type its JSON implies, as a literal in configuration does.
// Values are JSON with numbers kept as written; {"__unknown__":true} stands for an unknown value.
// A dynamic-typed value takes the type its JSON implies (arrays are tuples, objects are objects).
package main

import (
	"bufio"
	"bytes"
	"encoding/hex"
	"encoding/json"
	"errors"
	"fmt"
	"os"

	"github.com/zclconf/go-cty/cty"
	"github.com/zclconf/go-cty/cty/convert"
	ctyjson "github.com/zclconf/go-cty/cty/json"
	ctymsgpack "github.com/zclconf/go-cty/cty/msgpack"
)

type request struct {
	Op     string          `json:"op"`
	Type   json.RawMessage `json:"type"`
	Value  json.RawMessage `json:"value"`
	Hex    string          `json:"hex"`
	Refine refinement      `json:"refine"`
}

type refinement struct {
	NotNull bool     `json:"notnull"`
	Prefix  string   `json:"prefix"`
	Min     *float64 `json:"min"`
	Max     *float64 `json:"max"`
	LenMin  *int     `json:"lenmin"`
	LenMax  *int     `json:"lenmax"`
}

type response struct {
	Hex   string `json:"hex,omitempty"`
	JSON  string `json:"json,omitempty"`
	Value any    `json:"value,omitempty"`
	Null  bool   `json:"null,omitempty"`
	Error string `json:"error,omitempty"`
	Path  []any  `json:"path,omitempty"`
}

func main() {
	scanner := bufio.NewScanner(os.Stdin)
	scanner.Buffer(make([]byte, 1<<20), 1<<28)
	out := bufio.NewWriter(os.Stdout)
	defer out.Flush()
	enc := json.NewEncoder(out)
	for scanner.Scan() {
		if err := enc.Encode(handle(scanner.Bytes())); err != nil {
			fmt.Fprintln(os.Stderr, err)
			os.Exit(1)
		}
	}
}

func handle(line []byte) (resp response) {
	defer func() {
		if r := recover(); r != nil {
			resp = response{Error: fmt.Sprint(r)}
		}
	}()
	var req request
	if err := json.Unmarshal(line, &req); err != nil {
		return response{Error: err.Error()}
	}
	var ty cty.Type
	if err := ty.UnmarshalJSON(req.Type); err != nil {
		return response{Error: err.Error()}
	}
	switch req.Op {
	case "encode":
		dec := json.NewDecoder(bytes.NewReader(req.Value))
		dec.UseNumber()
		var raw any
		if err := dec.Decode(&raw); err != nil {
			return response{Error: err.Error()}
		}
		val, err := toValue(raw, ty)
		if err != nil {
			return response{Error: err.Error()}
		}
		b, err := ctymsgpack.Marshal(val, ty)
		if err != nil {
			return response{Error: err.Error()}
		}
		return response{Hex: hex.EncodeToString(b)}
	case "json":
		dec := json.NewDecoder(bytes.NewReader(req.Value))
		dec.UseNumber()
		var raw any
		if err := dec.Decode(&raw); err != nil {
			return response{Error: err.Error()}
		}
		val, err := toValue(raw, ty)
		if err != nil {
			return response{Error: err.Error()}
		}
		b, err := ctyjson.Marshal(val, ty)
		if err != nil {
			return response{Error: err.Error()}
		}
		return response{JSON: string(b)}
	case "refined":
		r := req.Refine
		builder := cty.UnknownVal(ty).Refine()
		if r.NotNull {
			builder = builder.NotNull()
		}
		if r.Prefix != "" {
			builder = builder.StringPrefix(r.Prefix)
		}
		if r.Min != nil {
			builder = builder.NumberRangeLowerBound(cty.NumberFloatVal(*r.Min), true)
		}
		if r.Max != nil {
			builder = builder.NumberRangeUpperBound(cty.NumberFloatVal(*r.Max), false)
		}
		if r.LenMin != nil {
			builder = builder.CollectionLengthLowerBound(*r.LenMin)
		}
		if r.LenMax != nil {
			builder = builder.CollectionLengthUpperBound(*r.LenMax)
		}
		b, err := ctymsgpack.Marshal(builder.NewValue(), ty)
		if err != nil {
			return response{Error: err.Error()}
		}
		return response{Hex: hex.EncodeToString(b)}
	case "convert":
		dec := json.NewDecoder(bytes.NewReader(req.Value))
		dec.UseNumber()
		var raw any
		if err := dec.Decode(&raw); err != nil {
			return response{Error: err.Error()}
		}
		val, err := implied(raw)
		if err != nil {
			return response{Error: err.Error()}
		}
		out, err := convert.Convert(val, ty)
		if err != nil {
			resp := response{Error: err.Error(), Path: []any{}}
			var pathErr cty.PathError
			if errors.As(err, &pathErr) {
				for _, step := range pathErr.Path {
					switch s := step.(type) {
					case cty.GetAttrStep:
						resp.Path = append(resp.Path, s.Name)
					case cty.IndexStep:
						if s.Key.Type() == cty.String {
							resp.Path = append(resp.Path, s.Key.AsString())
						} else {
							i, _ := s.Key.AsBigFloat().Int64()
							resp.Path = append(resp.Path, i)
						}
					}
				}
			}
			return resp
		}
		v := fromValue(out)
		return response{Value: v, Null: v == nil}
	case "decode":
		b, err := hex.DecodeString(req.Hex)
		if err != nil {
			return response{Error: err.Error()}
		}
		val, err := ctymsgpack.Unmarshal(b, ty)
		if err != nil {
			return response{Error: err.Error()}
		}
		v := fromValue(val)
		return response{Value: v, Null: v == nil}
	}
	return response{Error: "unknown op " + req.Op}
}

func isUnknown(raw any) bool {
	m, ok := raw.(map[string]any)
	return ok && len(m) == 1 && m["__unknown__"] == true
}

func toValue(raw any, ty cty.Type) (cty.Value, error) {
	if raw == nil {
		return cty.NullVal(ty), nil
	}
	if isUnknown(raw) {
		return cty.UnknownVal(ty), nil
	}
	switch {
	case ty == cty.DynamicPseudoType:
		return implied(raw)
	case ty == cty.String:
		s, ok := raw.(string)
		if !ok {
			return cty.NilVal, fmt.Errorf("string expected, got %T", raw)
		}
		return cty.StringVal(s), nil
	case ty == cty.Number:
		n, ok := raw.(json.Number)
		if !ok {
			return cty.NilVal, fmt.Errorf("number expected, got %T", raw)
		}
		return cty.ParseNumberVal(string(n))
	case ty == cty.Bool:
		b, ok := raw.(bool)
		if !ok {
			return cty.NilVal, fmt.Errorf("bool expected, got %T", raw)
		}
		return cty.BoolVal(b), nil
	case ty.IsListType(), ty.IsSetType(), ty.IsTupleType():
		items, ok := raw.([]any)
		if !ok {
			return cty.NilVal, fmt.Errorf("array expected, got %T", raw)
		}
		vals := make([]cty.Value, len(items))
		for i, item := range items {
			ety := cty.DynamicPseudoType
			if ty.IsTupleType() {
				ety = ty.TupleElementType(i)
			} else {
				ety = ty.ElementType()
			}
			v, err := toValue(item, ety)
			if err != nil {
				return cty.NilVal, err
			}
			vals[i] = v
		}
		switch {
		case ty.IsTupleType():
			return cty.TupleVal(vals), nil
		case len(vals) == 0 && ty.IsListType():
			return cty.ListValEmpty(ty.ElementType()), nil
		case len(vals) == 0:
			return cty.SetValEmpty(ty.ElementType()), nil
		case ty.IsListType():
			return cty.ListVal(vals), nil
		default:
			return cty.SetVal(vals), nil
		}
	case ty.IsMapType():
		items, ok := raw.(map[string]any)
		if !ok {
			return cty.NilVal, fmt.Errorf("object expected for map, got %T", raw)
		}
		if len(items) == 0 {
			return cty.MapValEmpty(ty.ElementType()), nil
		}
		vals := make(map[string]cty.Value, len(items))
		for k, item := range items {
			v, err := toValue(item, ty.ElementType())
			if err != nil {
				return cty.NilVal, err
			}
			vals[k] = v
		}
		return cty.MapVal(vals), nil
	case ty.IsObjectType():
		items, ok := raw.(map[string]any)
		if !ok {
			return cty.NilVal, fmt.Errorf("object expected, got %T", raw)
		}
		vals := make(map[string]cty.Value)
		for name, aty := range ty.AttributeTypes() {
			v, err := toValue(items[name], aty)
			if err != nil {
				return cty.NilVal, err
			}
			vals[name] = v
		}
		return cty.ObjectVal(vals), nil
	}
	return cty.NilVal, fmt.Errorf("unsupported type %s", ty.FriendlyName())
}

func implied(raw any) (cty.Value, error) {
	switch v := raw.(type) {
	case nil:
		return cty.NullVal(cty.DynamicPseudoType), nil
	case string:
		return cty.StringVal(v), nil
	case json.Number:
		return cty.ParseNumberVal(string(v))
	case bool:
		return cty.BoolVal(v), nil
	case []any:
		vals := make([]cty.Value, len(v))
		for i, item := range v {
			iv, err := implied(item)
			if err != nil {
				return cty.NilVal, err
			}
			vals[i] = iv
		}
		return cty.TupleVal(vals), nil
	case map[string]any:
		if isUnknown(v) {
			return cty.DynamicVal, nil
		}
		vals := make(map[string]cty.Value, len(v))
		for k, item := range v {
			iv, err := implied(item)
			if err != nil {
				return cty.NilVal, err
			}
			vals[k] = iv
		}
		return cty.ObjectVal(vals), nil
	}
	return cty.NilVal, fmt.Errorf("unsupported JSON value %T", raw)
}

func fromValue(val cty.Value) any {
	if !val.IsKnown() {
		return map[string]any{"__unknown__": true}
	}
	if val.IsNull() {
		return nil
	}
	ty := val.Type()
	switch {
	case ty == cty.String:
		return val.AsString()
	case ty == cty.Number:
		if bf := val.AsBigFloat(); bf.IsInf() {
			return bf.String() // "+Inf" or "-Inf": JSON has no number for them
		}
		return json.Number(val.AsBigFloat().Text('f', -1))
	case ty == cty.Bool:
		return val.True()
	case ty.IsListType(), ty.IsSetType(), ty.IsTupleType():
		out := []any{}
		for it := val.ElementIterator(); it.Next(); {
			_, ev := it.Element()
			out = append(out, fromValue(ev))
		}
		return out
	case ty.IsMapType(), ty.IsObjectType():
		out := map[string]any{}
		for it := val.ElementIterator(); it.Next(); {
			k, ev := it.Element()
			out[k.AsString()] = fromValue(ev)
		}
		return out
	}
	return fmt.Sprintf("unsupported %s", ty.FriendlyName())
}
