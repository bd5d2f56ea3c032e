"""A lending library on the Python `mcp` SDK (FastMCP), for sagedeck's resources, prompts and
elicitation tests.

    python library_server.py stdio
    python library_server.py streamable-http   (binds 127.0.0.1 on a free port, prints "PORT <n>")

Resources: `library://catalog` (JSON text, titled, with an icon), `library://cover.png` (binary)
and the template `library://books/{isbn}`. Prompts: `summarize(title, tone)` (one user message)
and `interview(author)` (a user and an assistant message). Tools: `reserve(title)` asks for
the reservation's days and pickup (form elicitation) and says what it was answered;
`verify_card()` asks the person to visit a page (URL elicitation); `touch(uri)` sends
`resources/updated` when that URI is subscribed (and says whether it was);
`add_book(isbn)` adds a resource and sends `resources/list_changed`; `link_book(isbn)` answers
with a resource link.
"""

from mcp import types
from mcp.server.fastmcp import Context, FastMCP
from mcp.server.fastmcp.resources import TextResource
from pydantic import AnyUrl, BaseModel, Field
from serve import run

mcp = FastMCP("Library Server", host="127.0.0.1")
subscribed: set[str] = set()
COVER = bytes([0x89, 0x50, 0x4E, 0x47, 0x0D, 0x0A, 0x1A, 0x0A]) + bytes(range(24))


@mcp.resource(
    "library://catalog",
    title="Library catalog",
    description="Every book on the shelves",
    mime_type="application/json",
    icons=[types.Icon(src="https://library.example/catalog.png", mimeType="image/png")],
)
def catalog() -> str:
    return '{"books": ["978-0", "978-1"]}'


@mcp.resource("library://cover.png", description="The cover of the week", mime_type="image/png")
def cover() -> bytes:
    return COVER


@mcp.resource("library://books/{isbn}", title="A book", description="One book by ISBN")
def book(isbn: str) -> str:
    return f"book {isbn}: on the shelf"


@mcp.prompt(title="Summarize a book", description="Ask for a summary of a book")
def summarize(title: str, tone: str = "plain") -> str:
    return f"Summarize {title} in a {tone} tone."


@mcp.prompt(description="An interview with an author")
def interview(author: str) -> list:
    from mcp.server.fastmcp.prompts.base import AssistantMessage, UserMessage

    return [UserMessage(f"Interview {author}."), AssistantMessage(f"Hello {author}, welcome.")]


class Reservation(BaseModel):
    days: int = Field(description="How many days", ge=1, le=30)
    pickup: bool = Field(default=False, description="Pick up at the desk")


@mcp.tool()
async def reserve(title: str, ctx: Context) -> str:
    answer = await ctx.elicit(f"Reserve {title}: for how long?", Reservation)
    if answer.action == "accept":
        return f"reserved {title} for {answer.data.days} days (pickup {answer.data.pickup})"
    return f"reservation {answer.action}"


@mcp.tool()
async def verify_card(ctx: Context) -> str:
    answer = await ctx.elicit_url("Verify your library card", "https://library.example/verify?c=1", "card-1")
    return f"verification {answer.action}"


@mcp.tool()
async def touch(uri: str, ctx: Context) -> str:
    if uri not in subscribed:
        return f"{uri} is not subscribed"
    await ctx.session.send_resource_updated(AnyUrl(uri))
    return f"{uri} updated"


@mcp.tool()
async def add_book(isbn: str, ctx: Context) -> str:
    uri = f"library://new/{isbn}"
    mcp.add_resource(TextResource(uri=AnyUrl(uri), name=f"new-{isbn}", text=f"new book {isbn}"))
    await ctx.session.send_resource_list_changed()
    return f"added {uri}"


@mcp.tool(title="Link a book", icons=[types.Icon(src="https://library.example/link.png")])
def link_book(isbn: str) -> list:
    return [
        types.ResourceLink(
            type="resource_link",
            uri=AnyUrl(f"library://books/{isbn}"),
            name=f"book-{isbn}",
            title=f"Book {isbn}",
            mimeType="text/plain",
            icons=[types.Icon(src="https://library.example/book.png")],
        )
    ]


@mcp._mcp_server.subscribe_resource()
async def on_subscribe(uri: AnyUrl) -> None:
    subscribed.add(str(uri))


@mcp._mcp_server.unsubscribe_resource()
async def on_unsubscribe(uri: AnyUrl) -> None:
    subscribed.discard(str(uri))


# FastMCP announces `subscribe: false` and no list changes whatever it handles: say what this
# server does.
_capabilities = mcp._mcp_server.get_capabilities


def capabilities(options, experimental):
    caps = _capabilities(options, experimental)
    caps.resources = types.ResourcesCapability(subscribe=True, listChanged=True)
    return caps


mcp._mcp_server.get_capabilities = capabilities


if __name__ == "__main__":
    run(mcp)
