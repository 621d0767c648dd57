// Package nwb reads, writes and canonicalizes authored .nwb sources, the
// text format in which the engine of seed 001 (NWBLot) keeps meshes,
// skeletons, skins, models and asset bunches under version control
// (../shared/spec/nwb.md §1–§2).
//
// Layers, each usable alone:
//   - Parse: lexer and parser; expressions are evaluated as they are read
//     into a File of declarations whose values are generic Values
//     (numbers, strings, lists, maps, symbolic references).
//   - (*File).Document: the typed model (Mesh, Skeleton, Skin, Model, a
//     bunch) with every validation rule of nwb.md §1.
//   - Write: the engine's writer layout (CRLF, 4-space indents, trailing
//     commas), byte for byte.
//   - ToScene / FromScene: conversion to and from meshcook's canonical
//     mesh.Scene.
//   - Refresh / Check: canonicalization of mesh streams by text splicing,
//     keeping every byte outside the rewritten lists (nwb.md §2).
//
// Errors that point into a source are *SyntaxError values printed as
// "nwb: <file>:<line>:<col>: <message>" with a 1-based line and byte column.
package nwb

import "fmt"

// SyntaxError is an error located in a source file: lexical, syntactic,
// evaluation and validation errors all carry the position of the construct
// at fault.
type SyntaxError struct {
	File      string
	Line, Col int // 1-based line and byte column
	Msg       string
}

func (e *SyntaxError) Error() string {
	return fmt.Sprintf("nwb: %s:%d:%d: %s", e.File, e.Line, e.Col, e.Msg)
}
