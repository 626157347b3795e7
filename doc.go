// Package norn is the root of the Norn module: a git-native knowledge graph of Markdown
// notes. The code lives in the packages below it (see docs/architecture.md); this
// package holds only the repository-wide tests, such as the import-direction rule.
package norn
