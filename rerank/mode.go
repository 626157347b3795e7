package rerank

import "fmt"

// String is the mode's name: auto, off or force.
func (m Mode) String() string {
	switch m {
	case Auto:
		return "auto"
	case Off:
		return "off"
	case Force:
		return "force"
	}
	return fmt.Sprintf("Mode(%d)", int(m))
}

// ParseMode reads a mode's name (auto, off, force; "" is auto). Anything else is
// an error matching ErrMode.
func ParseMode(s string) (Mode, error) {
	switch s {
	case "", "auto":
		return Auto, nil
	case "off":
		return Off, nil
	case "force":
		return Force, nil
	}
	return Auto, fmt.Errorf("%w: %q: want auto, off or force", ErrMode, s)
}

// MarshalText writes the mode's name, so a request carrying a mode reads well
// in JSON.
func (m Mode) MarshalText() ([]byte, error) {
	if m < Auto || m > Force {
		return nil, fmt.Errorf("%w: %d", ErrMode, int(m))
	}
	return []byte(m.String()), nil
}

// UnmarshalText reads a mode's name (ParseMode).
func (m *Mode) UnmarshalText(b []byte) error {
	v, err := ParseMode(string(b))
	if err != nil {
		return err
	}
	*m = v
	return nil
}
