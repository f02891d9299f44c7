"""A small, hand-written corpus for core tests: distinct topics, so rankings are predictable."""

DOCS = {
    "solar.md": (
        "# Solar power\n\nPhotovoltaic panels convert sunlight into electricity. "
        "Inverters turn the panels' direct current into alternating current for the grid.\n\n"
        "## Storage\n\nBatteries store surplus solar electricity for the night."
    ),
    "bread.md": (
        "# Baking bread\n\nFlour, water, salt and yeast make a simple dough. "
        "Knead the dough, let it rise, then bake it in a hot oven until the crust is brown."
    ),
    "rivers.md": (
        "# Rivers\n\nA river carries water from its source to the sea. "
        "Floods happen when heavy rain raises the water above the river banks."
    ),
    "chess.md": (
        "# Chess openings\n\nThe Sicilian defence answers the king's pawn opening. "
        "Good openings develop knights and bishops quickly and castle the king early."
    ),
}
