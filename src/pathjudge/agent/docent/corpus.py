"""The Meridian documentation corpus Docent searches: eight short pages, each with a stable doc id.

Meridian is the fictional serverless database of the course material this project grew from. The facts
(limits, prices, regions, retention, SDKs, deletion rules) are the ones the golden tasks check; the wording
is ours. Doc ids are part of the contract: suites name them as the results that must surface.
"""

from __future__ import annotations

from pydantic import BaseModel, ConfigDict, Field

__all__ = ["CORPUS", "DOC_IDS", "Doc", "get_doc"]


class Doc(BaseModel):
    """One documentation page."""

    model_config = ConfigDict(frozen=True, extra="forbid")

    id: str = Field(min_length=1, description="Stable doc id, e.g. 'ratelimits'.")
    title: str = Field(description="Page title.")
    text: str = Field(description="Page body.")

    def as_hit(self) -> dict[str, str]:
        """The JSON shape ``search_docs`` returns for this page."""
        return {"id": self.id, "title": self.title, "text": self.text}


CORPUS: tuple[Doc, ...] = (
    Doc(
        id="auth",
        title="Authentication",
        text=(
            "Every Meridian request is authenticated with an API key, passed as a bearer token in the "
            "Authorization header. API keys are created in the dashboard at Settings > API Keys. Each key "
            "is a test key or a live key; test keys can only reach sandbox data. The key is displayed a "
            "single time when it is created and can never be recovered afterwards, only rotated."
        ),
    ),
    Doc(
        id="ratelimits",
        title="Rate Limits",
        text=(
            "On the Free plan you may send 60 requests per minute; on the Pro plan, 600 requests per "
            "minute. A request over the limit gets HTTP 429 and a Retry-After header saying how many "
            "seconds to wait. Limits are counted per API key, not per account."
        ),
    ),
    Doc(
        id="plans",
        title="Plans and Pricing",
        text=(
            "There are three Meridian plans. Free is 0 dollars per month with 1 GB of storage. Pro is 25 "
            "dollars per month with 50 GB of storage. Scale is 199 dollars per month with 500 GB of "
            "storage. Unlimited read replicas come with every plan."
        ),
    ),
    Doc(
        id="regions",
        title="Regions",
        text=(
            "A database can live in one of three regions: us-east, eu-west or ap-south. The region is "
            "chosen at creation and cannot be changed afterwards; moving data to another region means "
            "exporting it and importing it into a new database. Cross-region read replicas exist only "
            "on the Scale plan."
        ),
    ),
    Doc(
        id="errors",
        title="Error Codes",
        text=(
            "Meridian answers with standard HTTP status codes. 400: the request is malformed. 401: the "
            "API key is missing or invalid. 403: the key is valid but lacks permission. 404: the resource "
            "does not exist. 429: the rate limit was exceeded. A 5xx code is a server-side error; retry "
            "it with backoff."
        ),
    ),
    Doc(
        id="backups",
        title="Backups",
        text=(
            "Daily backups are automatic and kept for 7 days on the Free plan, 30 days on Pro and 90 days "
            "on Scale. They run at 03:00 UTC. The Scale plan adds point-in-time recovery to any second "
            "within the retention window. A restore always creates a new database; the original is "
            "never overwritten."
        ),
    ),
    Doc(
        id="sdks",
        title="SDKs",
        text=(
            "Meridian ships official SDKs for Python, JavaScript and Go. The Python SDK installs with "
            "'pip install meridian'. By default the SDK takes the API key from the MERIDIAN_API_KEY "
            "environment variable. Every SDK retries idempotent requests up to 3 times on 5xx errors, "
            "with exponential backoff."
        ),
    ),
    Doc(
        id="deletion",
        title="Deleting Data",
        text=(
            "Deleting a database takes effect at once and becomes irreversible when the 24-hour grace "
            "period is over. Within the grace period the database is only soft-deleted and the dashboard "
            "can restore it. Once 24 hours have passed, the data and all of its backups are purged for "
            "good. Only a live-mode key with admin permission can delete a database."
        ),
    ),
)
"""The eight pages, in a fixed order (ties in retrieval keep this order)."""

DOC_IDS: tuple[str, ...] = tuple(doc.id for doc in CORPUS)

_BY_ID = {doc.id: doc for doc in CORPUS}


def get_doc(doc_id: str) -> Doc:
    """The page with id ``doc_id``; ``KeyError`` naming the known ids when there is none."""
    try:
        return _BY_ID[doc_id]
    except KeyError:
        raise KeyError(f"no Meridian page {doc_id!r}; known: {', '.join(DOC_IDS)}") from None
