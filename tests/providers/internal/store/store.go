// Package store keeps each test object as one JSON file in a root directory,
// so that objects outlive the provider process: editing or deleting a file is
// drift, and reading a file by its name is import.
package store

import (
	"crypto/rand"
	"crypto/sha256"
	"encoding/hex"
	"encoding/json"
	"errors"
	"fmt"
	"os"
	"path/filepath"
	"regexp"
	"sort"
	"strings"
)

// RootEnv names the environment variable used when a provider block sets no root.
const RootEnv = "CTLTEST_ROOT"

var idPattern = regexp.MustCompile(`^[A-Za-z0-9._-]+$`)

// ResolveRoot picks the configured root, else the environment's; empty when neither is set.
func ResolveRoot(configured string) string {
	if configured != "" {
		return configured
	}
	return os.Getenv(RootEnv)
}

// NewID returns a fresh random object id (it is also the file name without .json).
func NewID() string {
	buf := make([]byte, 6)
	if _, err := rand.Read(buf); err != nil {
		panic(err)
	}
	return hex.EncodeToString(buf)
}

// Hash is a short content digest of any JSON-encodable value.
func Hash(v any) string {
	raw, err := json.Marshal(v)
	if err != nil {
		panic(err)
	}
	sum := sha256.Sum256(raw)
	return hex.EncodeToString(sum[:8])
}

func path(root, id string) (string, error) {
	if root == "" {
		return "", errors.New("no root directory configured")
	}
	if !idPattern.MatchString(id) || strings.HasPrefix(id, ".") {
		return "", fmt.Errorf("invalid object id %q: ids are file names made of letters, digits, '.', '_' and '-'", id)
	}
	return filepath.Join(root, id+".json"), nil
}

// Write stores v as the object id, creating the root directory when missing.
func Write(root, id string, v any) error {
	p, err := path(root, id)
	if err != nil {
		return err
	}
	if err := os.MkdirAll(root, 0o755); err != nil {
		return err
	}
	raw, err := json.MarshalIndent(v, "", "  ")
	if err != nil {
		return err
	}
	tmp := p + ".tmp"
	if err := os.WriteFile(tmp, append(raw, '\n'), 0o644); err != nil {
		return err
	}
	return os.Rename(tmp, p)
}

// Read decodes the object id into v; found is false when its file does not exist.
func Read(root, id string, v any) (found bool, err error) {
	p, err := path(root, id)
	if err != nil {
		return false, err
	}
	raw, err := os.ReadFile(p)
	if errors.Is(err, os.ErrNotExist) {
		return false, nil
	}
	if err != nil {
		return false, err
	}
	if err := json.Unmarshal(raw, v); err != nil {
		return true, fmt.Errorf("object file %s is not valid JSON: %w", p, err)
	}
	return true, nil
}

// Delete removes the object id; a missing file is not an error (it is already gone).
func Delete(root, id string) error {
	p, err := path(root, id)
	if err != nil {
		return err
	}
	if err := os.Remove(p); err != nil && !errors.Is(err, os.ErrNotExist) {
		return err
	}
	return nil
}

// FindByName returns the id of the object whose "name" field equals name, or "" if none does.
func FindByName(root, name string) (string, error) {
	if root == "" {
		return "", errors.New("no root directory configured")
	}
	entries, err := os.ReadDir(root)
	if err != nil {
		return "", err
	}
	names := make([]string, 0, len(entries))
	for _, e := range entries {
		if !e.IsDir() && strings.HasSuffix(e.Name(), ".json") {
			names = append(names, e.Name())
		}
	}
	sort.Strings(names)
	for _, fileName := range names {
		var doc struct {
			Name *string `json:"name"`
		}
		raw, err := os.ReadFile(filepath.Join(root, fileName))
		if err != nil || json.Unmarshal(raw, &doc) != nil {
			continue
		}
		if doc.Name != nil && *doc.Name == name {
			return strings.TrimSuffix(fileName, ".json"), nil
		}
	}
	return "", nil
}
