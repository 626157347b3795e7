package graph_test

import (
	"errors"
	"reflect"
	"strings"
	"testing"
	"unicode/utf8"

	"github.com/norn-vault/norn/graph"
)

func TestParseQuery(t *testing.T) {
	type C = graph.Clause
	tests := []struct {
		in   string
		want []C
	}{
		{"bloom filter", []C{{Kind: "word", Value: "bloom", Pos: 0}, {Kind: "word", Value: "filter", Pos: 6}}},
		{`"count min" sketch`, []C{{Kind: "phrase", Value: "count min"}, {Kind: "word", Value: "sketch", Pos: 12}}},
		{`+"count min" sketch`, []C{{Kind: "phrase", Value: "count min", Required: true}, {Kind: "word", Value: "sketch", Pos: 13}}},
		{`"count min", sketch`, []C{{Kind: "phrase", Value: "count min"}, {Kind: "word", Value: ",", Pos: 11}, {Kind: "word", Value: "sketch", Pos: 13}}},
		{"a - b +", []C{{Kind: "word", Value: "a"}, {Kind: "word", Value: "b", Pos: 4}}},
		{"-draft +hash", []C{{Kind: "word", Value: "draft", Negated: true}, {Kind: "word", Value: "hash", Required: true, Pos: 7}}},
		{"tag:#data/sets folder:/tech/", []C{{Kind: "tag", Value: "data/sets", Required: true}, {Kind: "folder", Value: "tech", Required: true, Pos: 15}}},
		{`status:active Owner:"Ada L"`, []C{{Kind: "field", Key: "status", Value: "active", Required: true}, {Kind: "field", Key: "owner", Value: "Ada L", Required: true, Pos: 14}}},
		{"a OR b", []C{{Kind: "word", Value: "a"}, {Kind: "word", Value: "b", Or: true, Pos: 5}}},
		{`"x y" OR tag:z`, []C{{Kind: "phrase", Value: "x y"}, {Kind: "tag", Value: "z", Required: true, Or: true, Pos: 9}}},
		{"-tag:old notes", []C{{Kind: "tag", Value: "old", Required: true, Negated: true}, {Kind: "word", Value: "notes", Pos: 9}}},
		// Not filters: a colon at the end, a double colon, a URL, a non-key.
		{"Note: std::vector http://x.org 12:30", []C{{Kind: "word", Value: "Note:"}, {Kind: "word", Value: "std::vector", Pos: 6}, {Kind: "word", Value: "http://x.org", Pos: 18}, {Kind: "word", Value: "12:30", Pos: 31}}},
		{"or and", []C{{Kind: "word", Value: "or"}, {Kind: "word", Value: "and", Pos: 3}}}, // lowercase or is a word
		{`5" wide`, []C{{Kind: "word", Value: `5"`}, {Kind: "word", Value: "wide", Pos: 3}}},
		{"  naïve\tcafé ", []C{{Kind: "word", Value: "naïve", Pos: 2}, {Kind: "word", Value: "café", Pos: 9}}},
	}
	for _, tt := range tests {
		q, err := graph.ParseQuery(tt.in)
		if err != nil {
			t.Errorf("ParseQuery(%q): %v", tt.in, err)
			continue
		}
		if !reflect.DeepEqual(q.Clauses, tt.want) {
			t.Errorf("ParseQuery(%q) =\n %+v\nwant\n %+v", tt.in, q.Clauses, tt.want)
		}
	}
}

func TestParseQuery_Errors(t *testing.T) {
	tests := []struct {
		in  string
		pos int
	}{
		{"", 0},
		{"   ", 0},
		{`"open phrase`, 0},
		{`a "b`, 2},
		{`""`, 0},
		{`"  "`, 0},
		{`"a"b`, 3},
		{"+", 0},
		{"- -", 0},
		{"--a", 1},
		{"OR a", 0},
		{"a OR", 2},
		{"a OR OR b", 5},
		{"a OR -b", 2},
		{"+a OR b", 3},
		{"-a -b", 0},
		{"tag:", 0},
		{"folder:", 0},
		{"tag:#", 4},
		{"folder:/", 7},
		{`k:"v`, 2},
		{"a \xff", 2},
	}
	for _, tt := range tests {
		_, err := graph.ParseQuery(tt.in)
		if !errors.Is(err, graph.ErrQuery) {
			t.Errorf("ParseQuery(%q) = %v, want ErrQuery", tt.in, err)
			continue
		}
		var qe *graph.QueryError
		if !errors.As(err, &qe) || qe.Pos != tt.pos || qe.Reason == "" {
			t.Errorf("ParseQuery(%q): %#v, want position %d and a reason", tt.in, err, tt.pos)
		}
	}
}

// TestQueryError_ShortMessage: the message of an error in a huge query shows the
// part around the problem, not the whole query; the error keeps all of it.
func TestQueryError_ShortMessage(t *testing.T) {
	long := strings.Repeat("word ", 20000) + `"unclosed ` + strings.Repeat("é", 500)
	_, err := graph.ParseQuery(long)
	var qe *graph.QueryError
	if !errors.As(err, &qe) || qe.Query != long {
		t.Fatalf("%v", err)
	}
	msg := err.Error()
	if len(msg) > 300 || !strings.Contains(msg, "unclosed") || !strings.Contains(msg, "unterminated quote") ||
		!strings.Contains(msg, "…") || !utf8.ValidString(msg) {
		t.Fatalf("message (%d bytes): %s", len(msg), msg)
	}
	if _, err := graph.ParseQuery(`a "b`); err == nil || !strings.Contains(err.Error(), `"a \"b"`) {
		t.Fatalf("a short query is shown whole: %v", err)
	}
}
