package note

import (
	"reflect"
	"testing"
)

const sectionDoc = `---
title: Sections
---
# Guide
intro
## Install
steps
### Linux
apt
### Windows / WSL
choco
## Usage
### Linux
run
# Appendix
## Install
other
`

func TestSection(t *testing.T) {
	n, err := Parse("guide.md", []byte(sectionDoc))
	if err != nil {
		t.Fatal(err)
	}
	tests := []struct {
		query string
		want  string // the section's text; "" when not found
	}{
		{"Install", "## Install\nsteps\n### Linux\napt\n### Windows / WSL\nchoco\n"},
		{"  install ", "## Install\nsteps\n### Linux\napt\n### Windows / WSL\nchoco\n"},
		{"## Install", "## Install\nsteps\n### Linux\napt\n### Windows / WSL\nchoco\n"},
		{"# Install", ""},
		{"Linux", "### Linux\napt\n"},
		{"Usage/Linux", "### Linux\nrun\n"},
		{"Guide/Usage/Linux", "### Linux\nrun\n"},
		{"Guide/Linux", "### Linux\napt\n"},
		{"## Usage/### Linux", "### Linux\nrun\n"},
		{"Appendix/Install", "## Install\nother\n"},
		{"Appendix/Linux", ""},
		{"Windows / WSL", "### Windows / WSL\nchoco\n"},
		{"Install/Windows / WSL", "### Windows / WSL\nchoco\n"},
		{"Guide", sectionDoc[len("---\ntitle: Sections\n---\n") : len(sectionDoc)-len("# Appendix\n## Install\nother\n")]},
		{"appendix", "# Appendix\n## Install\nother\n"},
		{"Missing", ""},
		{"", ""},
		{"/", ""},
		{"##", ""},
	}
	for _, tt := range tests {
		start, end, ok := Section(n, tt.query)
		got := ""
		if ok {
			got = sectionDoc[start:end]
		}
		if ok != (tt.want != "") || got != tt.want {
			t.Errorf("Section(%q) = %q, %v; want %q", tt.query, got, ok, tt.want)
		}
	}
}

func TestNote_Outline(t *testing.T) {
	n, err := Parse("guide.md", []byte(sectionDoc))
	if err != nil {
		t.Fatal(err)
	}
	want := []OutlineEntry{
		{1, "Guide", 4, 92},
		{2, "Install", 6, 55},
		{3, "Linux", 8, 14},
		{3, "Windows / WSL", 10, 24},
		{2, "Usage", 12, 23},
		{3, "Linux", 13, 14},
		{1, "Appendix", 15, 28},
		{2, "Install", 16, 17},
	}
	if got := n.Outline(); !reflect.DeepEqual(got, want) {
		t.Errorf("Outline =\n%v\nwant\n%v", got, want)
	}
	if got := (&Note{}).Outline(); len(got) != 0 {
		t.Errorf("empty note outline %v", got)
	}
}
