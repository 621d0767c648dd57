package cook

// Report is what one cook did, printed by `meshcook cook --json`. The JSON
// field names are a contract (a test pins them).
type Report struct {
	Outputs  []OutputReport `json:"outputs"`
	Stages   []StageReport  `json:"stages"`
	Meshes   []MeshReport   `json:"meshes"`
	Warnings []string       `json:"warnings"`
	Errors   []string       `json:"errors"`
	// Dropped lists what sources have that the outputs do not carry, one
	// entry per source and kind, in job order (also in Warnings as text).
	// Options.Strict turns any entry into an input error of its job.
	Dropped []DropReport `json:"dropped"`
	// CacheHits and CacheMisses count jobs served from the cache and
	// cooked (both 0 without a cache); BytesWritten sums the outputs this
	// cook wrote (unchanged outputs are not rewritten).
	CacheHits    int   `json:"cacheHits"`
	CacheMisses  int   `json:"cacheMisses"`
	BytesWritten int64 `json:"bytesWritten"`
	// Remote is what the remote cache did (only with one, Cache.UseRemote).
	Remote *RemoteReport `json:"remote,omitempty"`
	// Check lists what differs from a fresh cook (Options.Check only).
	Check []CheckDiff `json:"check,omitempty"`
	// Pruned lists the outputs Options.Prune removed, by name.
	Pruned []string `json:"pruned,omitempty"`

	// InputErrors, OutputErrors and InternalErrors count failed jobs by
	// kind, for exit codes.
	InputErrors    int `json:"-"`
	OutputErrors   int `json:"-"`
	InternalErrors int `json:"-"`
}

// OutputReport is one written (or already up-to-date) output file.
type OutputReport struct {
	Name    string `json:"name"` // stable name relative to the output folder
	Path    string `json:"path"` // path on disk
	Kind    string `json:"kind"` // "hmesh", "hmat", "hanim", "ktx2"
	Bytes   int    `json:"bytes"`
	XXH3    string `json:"xxh3"` // xxh3-64 of the bytes, 16 lowercase hex digits
	Changed bool   `json:"changed"`
	// Inputs are the files the output was made from: its source and every
	// file the source references (all sources' for world files).
	Inputs []string `json:"inputs"`
}

// StageReport is the wall time spent in one pipeline stage, summed over jobs.
type StageReport struct {
	Name string  `json:"name"`
	MS   float64 `json:"ms"`
}

// MeshReport summarises one cooked mesh.
type MeshReport struct {
	Name      string `json:"name"`
	Source    string `json:"source"`
	Vertices  int    `json:"vertices"`
	Triangles int    `json:"triangles"`
	Submeshes int    `json:"submeshes"`
	// DrawsBefore is the source's submesh count (one per primitive
	// instance) and Draws the cooked one, after draw merging
	// (mesh.MergeDraws; equal with Options.KeepNodes).
	DrawsBefore       int     `json:"drawsBefore"`
	Draws             int     `json:"draws"`
	Meshlets          int     `json:"meshlets"`
	AvgMeshletTris    float64 `json:"avgMeshletTris"`
	AvgMeshletVerts   float64 `json:"avgMeshletVerts"`
	GeneratedNormals  int     `json:"generatedNormals"`  // submeshes whose normals were generated
	GeneratedTangents int     `json:"generatedTangents"` // submeshes whose tangents were generated
	DegenerateDropped int     `json:"degenerateDropped"`
	// Joints, Clips and Textures count what the hmesh target wrote beside
	// the geometry: SKEL joints, .hanim clips and .ktx2 files.
	Joints   int `json:"joints"`
	Clips    int `json:"clips"`
	Textures int `json:"textures"`
	// Lods has one entry per reduced level (LOD1 first).
	Lods []LodReport `json:"lods"`
}

// DropReport is one kind of data a source has that the cook did not carry.
type DropReport struct {
	Source string `json:"source"` // the source (or the file it references), relative
	What   string `json:"what"`
	Count  int    `json:"count"`
}

// LodReport is one reduced level over all submeshes.
type LodReport struct {
	Ratio float32 `json:"ratio"` // the target fraction of LOD0's triangles
	// Triangles drawn at this level: a submesh whose level stalled reuses
	// its previous level, and counts that level's triangles.
	Triangles int `json:"triangles"`
	// Error is the largest simplification error over the submeshes,
	// relative to each submesh's extent.
	Error float32 `json:"error"`
	// Stalled counts submeshes whose level stalled (indexCount 0).
	Stalled int `json:"stalled"`
	// Short counts submeshes whose level was kept but stopped above its
	// target (the error limit or the topology stopped it first).
	Short int `json:"short"`
	// Sloppy counts submeshes whose level the vertex-clustering fallback
	// made (--lod-sloppy); Error includes the clustering error.
	Sloppy int `json:"sloppy"`
}

// Stage names in pipeline order; the report lists them in this order.
const (
	StageImport       = "import"
	StageCanonicalize = "canonicalize"
	StageReorder      = "reorder"
	StageLODs         = "lods"
	StageMeshlets     = "meshlets"
	StageBounds       = "bounds"
	StageTextures     = "textures"
	StagePack         = "pack"
	StageValidate     = "validate"
	StageWrite        = "write"
)

var stageOrder = []string{StageImport, StageCanonicalize, StageReorder, StageLODs, StageMeshlets, StageBounds, StageTextures, StagePack, StageValidate, StageWrite}
