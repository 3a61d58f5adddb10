"""The compiled Game and the mutable State that plays it.

``game`` builds a Game from compiled rules (and plans its steps: ``fused``); ``state`` holds one
game in progress, ``layout`` its zones and variables as a game begins and their generated copier;
``kinds`` maps each step kind to its functions (``steps`` for deal, bid, tricks and effects,
``turns``, ``choose``, ``repeat``; ``filters`` runs card tests over a hand); ``actions``,
``spaces`` and ``privacy`` name and number actions and hide private choices; ``observation``,
``tensor`` and ``view`` show a seat what it may see; ``records`` verifies saved games; ``loader``
is ``load_game``; ``protocols`` names the types these modules share.

May import: ``trickkit.rules``, ``trickkit.dsl`` and the root modules. Never imports agents,
environments, the lab or the command line.
"""
