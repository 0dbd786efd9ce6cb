"""Falcon's distributed mode: a Prism in front of one Falcon server per colo (``[falcon] mode = prism``).

* :mod:`.colos` - the settings: the colos and their servers' URLs, and a request's ``colo`` expression;
* :mod:`.routing` - which colos a request goes to (clusters everywhere, feeds and processes to their clusters'
  colos);
* :mod:`.merging` - the colos' answers as one (``APIResult`` with status SUCCEEDED, PARTIAL or FAILED and each
  colo's message under its name, entity lists and instance results merged);
* :mod:`.forwarding` - one request to one colo's server, with the caller's identity, bounded in time;
* :mod:`.convergence` - each colo brought to what the record wants, idempotently (submit, update, schedule ...);
* :mod:`.app` - the Prism's FastAPI app, served where the server would be (``/falcon`` on the api-server).
"""
