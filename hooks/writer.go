package hooks

// Roles a Writer may hold.
const (
	// RoleOwner is the vault's person, writing through the CLI or their editor.
	RoleOwner = "owner"
	// RoleAgent is an AI agent or other program writing through MCP.
	RoleAgent = "agent"
	// RoleMaintenance may change protected blocks and write under .norn/ (Norn's own
	// generated content: related blocks, claims, synthesis records).
	RoleMaintenance = "maintenance"
	// RolePrivate lets a writer change private notes.
	RolePrivate = "private"
	// RoleAdmin may write under .norn/ (vault settings).
	RoleAdmin = "admin"
)

// Writer is who proposes a change.
type Writer struct {
	Name  string
	Roles []string
}

// Has reports whether the writer holds role.
func (w Writer) Has(role string) bool {
	for _, r := range w.Roles {
		if r == role {
			return true
		}
	}
	return false
}
