"""The board's page: every table live and the standings, from ``/api/club`` (JSON).

Plain standard-library HTTP and one small page that asks for the JSON every two
seconds; nothing but what the board computed is shown.
"""
import json
import threading
from http.server import BaseHTTPRequestHandler, ThreadingHTTPServer

PAGE = """<!doctype html><html><head><meta charset="utf-8"><title>Club board</title>
<meta name="viewport" content="width=device-width">
<style>body{font-family:sans-serif;margin:1em}table{border-collapse:collapse;margin:.5em 0}
td,th{border:1px solid #aaa;padding:.2em .5em}.p{color:#b00}</style></head><body>
<h1 id="club">Club board</h1><div id="tables"></div><h2>Standings</h2>
<div id="players"></div><div id="pairs"></div>
<script>
function esc(s){return String(s).replace(/[&<>"]/g,c=>({"&":"&amp;","<":"&lt;",">":"&gt;",'"':"&quot;"}[c]))}
function grid(rows,cols){return "<table><tr>"+cols.map(c=>"<th>"+esc(c)+"</th>").join("")+"</tr>"+
 rows.map(r=>"<tr>"+cols.map(c=>"<td>"+esc(r[c]??"")+"</td>").join("")+"</tr>").join("")+"</table>"}
async function tick(){
 try{const d=await (await fetch("api/club")).json();
  document.getElementById("club").textContent="Club "+d.club;
  document.getElementById("tables").innerHTML=d.tables.map(t=>"<h2>Table "+esc(t.table)+"</h2>"+
   grid(t.matches.map(m=>({match:m.match,game:m.game,seats:m.seats.join(", "),score:m.score.join(" - "),
    winner:(m.winner||[]).join(" & "),phase:m.phase,actions:m.events,problem:m.problem||""})),
    ["match","game","seats","score","winner","phase","actions","problem"])).join("");
  document.getElementById("players").innerHTML=grid(d.standings.players,["player","played","won"]);
  document.getElementById("pairs").innerHTML=grid(d.standings.partnerships,["partnership","played","won"]);
 }catch(e){}
 setTimeout(tick,2000)}
tick()
</script></body></html>
"""


def serve(board, host, port):
    """Serve in a thread; returns the server (``server_address[1]`` is the port)."""

    class Handler(BaseHTTPRequestHandler):
        def do_GET(self):
            if self.path in ("/", "/index.html"):
                self._send(200, "text/html; charset=utf-8", PAGE.encode())
            elif self.path == "/api/club":
                self._send(200, "application/json", json.dumps(board.snapshot()).encode())
            else:
                self._send(404, "text/plain", b"not found\n")

        def _send(self, status, kind, body):
            self.send_response(status)
            self.send_header("Content-Type", kind)
            self.send_header("Content-Length", str(len(body)))
            self.send_header("Cache-Control", "no-store")
            self.end_headers()
            self.wfile.write(body)

        def log_message(self, *args):
            pass

    server = ThreadingHTTPServer((host, port), Handler)
    server.daemon_threads = True
    threading.Thread(target=server.serve_forever, name="board-page", daemon=True).start()
    return server
