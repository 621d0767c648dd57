package cook

// References lists the files a job's source references besides itself
// (external glTF buffers and images, a heightfield's image), as paths
// joined to the source's folder, in the order the importer read them:
// what a build system that wants declared inputs (Bazel, `meshcook plan
// --bazel`) must list beside the source. It imports the source, under
// opts' path policy; an import error is the job's error, as in a cook.
func References(job Job, opts Options) ([]string, error) {
	scene, err := importSource(job, opts)
	if err != nil {
		return nil, err
	}
	return jobDeps(job, scene.Files), nil
}
