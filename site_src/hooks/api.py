"""MkDocs hook: the static JSON API at stable URLs.

`prescient build` writes the API under docs/generated/api/ (generated/ is the one folder it owns:
generator/site/api.py); the site serves those files at /api/, so a reader's script fetches
/api/boards/tournament/overall.json whatever the hub's pages are called. Its index page
(generated/api/index.md) is the page /api/ serves: a list of every file, not a server's folder listing.
"""

from mkdocs.structure.files import File, Files

SOURCE = "generated/api/"
INDEX = "index.md"  # the API's index page, served at /api/


def on_files(files: Files, config) -> Files:
    for file in [f for f in files if f.src_uri.startswith(SOURCE)]:
        files.remove(file)
        rest = file.src_uri.removeprefix(SOURCE)
        dest = "api/index.html" if rest == INDEX else "api/" + rest
        files.append(File(file.src_uri, file.src_dir, file.dest_dir, file.use_directory_urls, dest_uri=dest))
    return files
