"""Resource URIs of the evaluation loop: tool results link to these rather than inline them.

Three segments, so the documents' ``workbench://{collection}/{doc_id}`` never matches them.
"""

RUN_URI = "workbench://runs/{run_id}/queries"
STUDY_URI = "workbench://studies/{study}/trials"


def run_uri(run_id: int) -> str:
    return RUN_URI.format(run_id=run_id)


def study_uri(study: str) -> str:
    return STUDY_URI.format(study=study)
