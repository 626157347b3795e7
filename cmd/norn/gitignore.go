package main

import (
	"bytes"
	"os"
	"path/filepath"

	"github.com/norn-vault/norn/repo"
)

// obsidianIgnores are the .gitignore lines `norn init` makes sure of in a folder
// Obsidian opened (one holding .obsidian/), as Obsidian-with-git users write them:
// the per-device workspace layout, Obsidian's own trash and the OS's litter. Each
// line comes with paths it must ignore: an existing .gitignore that already
// ignores them all (with any pattern) does not get the line.
var obsidianIgnores = []struct {
	line  string
	paths []string
}{
	{".obsidian/workspace*.json", []string{".obsidian/workspace.json", ".obsidian/workspace-mobile.json"}},
	{".obsidian/workspace", []string{".obsidian/workspace"}},
	{".trash/", []string{".trash/note.md"}},
	{".DS_Store", []string{".DS_Store", "folder/.DS_Store"}},
	{"Thumbs.db", []string{"Thumbs.db", "folder/Thumbs.db"}},
}

// obsidianIgnoreHeader introduces the lines init appends.
const obsidianIgnoreHeader = "# Obsidian's per-device state and OS litter (added by norn init)\n"

// isObsidianVault reports whether dir holds an .obsidian folder.
func isObsidianVault(dir string) bool {
	fi, err := os.Stat(filepath.Join(dir, ".obsidian"))
	return err == nil && fi.IsDir()
}

// obsidianGitignore returns cur (a .gitignore's bytes, nil when absent) extended
// with the obsidianIgnores lines it does not cover, and those lines; nil and none
// when it covers them all. Nothing in cur is changed or reordered.
func obsidianGitignore(cur []byte) ([]byte, []string) {
	var missing []string
	for _, ig := range obsidianIgnores {
		for _, p := range ig.paths {
			if !repo.IgnoreCovers(cur, p) {
				missing = append(missing, ig.line)
				break
			}
		}
	}
	if len(missing) == 0 {
		return nil, nil
	}
	out := bytes.Clone(cur)
	if len(out) > 0 && out[len(out)-1] != '\n' {
		out = append(out, '\n')
	}
	if len(out) > 0 {
		out = append(out, '\n')
	}
	out = append(out, obsidianIgnoreHeader...)
	for _, l := range missing {
		out = append(out, l...)
		out = append(out, '\n')
	}
	return out, missing
}
