package repo

import (
	"os"
	"path/filepath"

	"github.com/go-git/go-git/v5/config"
)

// gitConfigIdentity reads user.name and user.email from the repository's config,
// falling back to the user's global git config for whatever is missing.
func gitConfigIdentity(dir string) Author {
	var a Author
	if f, err := os.Open(filepath.Join(dir, ".git", "config")); err == nil {
		if c, err := config.ReadConfig(f); err == nil {
			a.Name, a.Email = c.User.Name, c.User.Email
		}
		f.Close()
	}
	if a.Name == "" || a.Email == "" {
		if c, err := config.LoadConfig(config.GlobalScope); err == nil {
			if a.Name == "" {
				a.Name = c.User.Name
			}
			if a.Email == "" {
				a.Email = c.User.Email
			}
		}
	}
	return a
}
